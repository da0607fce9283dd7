package runner

import (
	"context"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
)

// BenchmarkShardStartSkew measures how far apart 3 shards in this process
// begin their load after a synchronised start: each goes through the real
// coordinator over TCP and the runner's own barrier (ping offsets, the
// agreed instant converted to its clock, the wait), then stamps the time.
// One process has one clock, so the spread of the stamps is the true skew.
// Reported: the median, p95 and worst skew over b.N starts (ms).
//
//	go test -run '^$' -bench ShardStartSkew -benchtime 50x ./runner
func BenchmarkShardStartSkew(b *testing.B) {
	const shards = 3
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go (&shard.Server{Shards: shards}).Serve(ctx, ln) // the default lead
	runs := make([]*run, shards)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := shard.Dial(ctx, ln.Addr().String(), shard.Hello{Index: i, Count: shards, Digest: "bench"}, 10*time.Second)
			if err != nil {
				b.Error(err)
				return
			}
			runs[i] = &run{obs: event.ObserverFunc(func(event.Event) {}), coord: coordination{client: c}}
		}()
	}
	wg.Wait()
	if b.Failed() {
		return
	}
	skews := make([]time.Duration, b.N)
	b.ResetTimer()
	for n := range b.N {
		began := make([]time.Time, shards)
		for i, r := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, why := r.startTogether(ctx, "bench", loops.Start{Window: result.LevelWindow(n, shards)}); why != nil {
					b.Error(why.Why)
				}
				began[i] = time.Now()
			}()
		}
		wg.Wait()
		skews[n] = slices.MaxFunc(began, time.Time.Compare).Sub(slices.MinFunc(began, time.Time.Compare))
	}
	b.StopTimer()
	slices.Sort(skews)
	b.ReportMetric(float64(skews[len(skews)/2])/1e6, "skew-p50-ms")
	b.ReportMetric(float64(skews[len(skews)*95/100])/1e6, "skew-p95-ms")
	b.ReportMetric(float64(skews[len(skews)-1])/1e6, "skew-max-ms")
	for _, r := range runs {
		r.coord.client.Close()
	}
}
