package container

import (
	"context"
	"sync"
	"time"

	dc "github.com/ory/dockertest/v3/docker"
)

// The figures Stats reports, as the runner's engine stats name them.
const (
	// StatCPU is the CPU the container used, in cores (1.5: one and a
	// half CPUs busy), over Docker's last reading period (about 1 s).
	StatCPU = "container_cpu_cores"
	// StatMemory is the container's memory use in bytes, page cache
	// excluded, as `docker stats` shows it.
	StatMemory = "container_memory_bytes"
)

// statsStream is the container's Docker stats stream: Docker sends a
// reading about once a second, each with the previous one's CPU counters,
// and the latest is kept.
type statsStream struct {
	once   sync.Once
	mu     sync.Mutex
	latest map[string]float64
	err    error
	stop   chan bool
	done   chan struct{}
}

// Stats is the container's latest CPU and memory reading (Docker's stats
// API, streamed from the first call until the container is closed): a
// reading at most about a second old, so that a sampler that calls it once
// a second never waits for Docker. Empty until the first reading arrives.
func (c *Container) Stats(ctx context.Context) (map[string]float64, error) {
	s := &c.stats
	s.once.Do(func() {
		s.mu.Lock()
		s.stop, s.done = make(chan bool), make(chan struct{})
		s.mu.Unlock()
		ch := make(chan *dc.Stats)
		go func() {
			defer close(s.done)
			err := c.pool.Client.Stats(dc.StatsOptions{ID: c.ID, Stats: ch, Stream: true, Done: s.stop, Timeout: 10 * time.Second})
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
		}()
		go func() {
			for st := range ch {
				m := Reading(st)
				s.mu.Lock()
				s.latest = m
				s.mu.Unlock()
			}
		}()
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.latest == nil && s.err != nil {
		return nil, s.err
	}
	out := make(map[string]float64, len(s.latest))
	for k, v := range s.latest {
		out[k] = v
	}
	return out, ctx.Err()
}

// closeStats ends the stream, if it was started.
func (c *Container) closeStats() {
	s := &c.stats
	s.mu.Lock()
	stop, done := s.stop, s.done
	s.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	<-done
}

// Reading is one Docker stats message as figures: CPU cores used between
// the previous reading and this one (as `docker stats` computes its CPU %,
// divided by 100), and memory in use less the inactive page cache.
func Reading(st *dc.Stats) map[string]float64 {
	out := map[string]float64{}
	if st == nil {
		return out
	}
	cpu, pre := st.CPUStats, st.PreCPUStats
	if wall := st.Read.Sub(st.PreRead); !st.PreRead.IsZero() && wall > 0 && cpu.CPUUsage.TotalUsage >= pre.CPUUsage.TotalUsage {
		out[StatCPU] = float64(cpu.CPUUsage.TotalUsage-pre.CPUUsage.TotalUsage) / float64(wall.Nanoseconds())
	}
	mem := st.MemoryStats.Usage
	// cgroup v2 reports inactive_file, v1 total_inactive_file.
	inactive := st.MemoryStats.Stats.InactiveFile
	if inactive == 0 {
		inactive = st.MemoryStats.Stats.TotalInactiveFile
	}
	if inactive < mem {
		mem -= inactive
	}
	if mem > 0 {
		out[StatMemory] = float64(mem)
	}
	return out
}
