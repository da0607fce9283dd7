package container

import (
	"testing"
	"time"

	dc "github.com/ory/dockertest/v3/docker"
)

// A Docker stats message gives the CPU cores used since the previous
// reading (as docker stats computes its CPU %) and the memory in use less
// the inactive page cache.
func TestReading(t *testing.T) {
	var st dc.Stats
	st.PreRead = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st.Read = st.PreRead.Add(time.Second)
	st.PreCPUStats.CPUUsage.TotalUsage = 5e9
	st.CPUStats.CPUUsage.TotalUsage = 5e9 + 1.5e9 // 1.5 s of CPU in 1 s
	st.MemoryStats.Usage = 300 << 20
	st.MemoryStats.Stats.InactiveFile = 100 << 20
	got := Reading(&st)
	if got[StatCPU] != 1.5 || got[StatMemory] != 200<<20 {
		t.Errorf("reading %v; want 1.5 cores and 200 MiB", got)
	}
	// The first message has no previous reading: no CPU figure.
	st.PreRead = time.Time{}
	if _, ok := Reading(&st)[StatCPU]; ok {
		t.Errorf("a first reading gives a CPU figure")
	}
}
