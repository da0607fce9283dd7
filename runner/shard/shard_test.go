package shard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

func TestUsersSplitExactly(t *testing.T) {
	for _, c := range []struct {
		users, shards int
		want          []int
	}{
		{1500, 4, []int{375, 375, 375, 375}},
		{10, 3, []int{4, 3, 3}},
		{2, 3, []int{1, 1, 0}},
		{7, 1, []int{7}},
	} {
		next := 0
		for i, want := range c.want {
			first, n := Share{Index: i, Count: c.shards}.Users(c.users)
			if n != want || first != next {
				t.Errorf("%d users over %d shards: shard %d has [%d, %d+%d); want [%d, %d+%d)", c.users, c.shards, i, first, first, n, next, next, want)
			}
			next += want
		}
	}
	// Every level over every shard count: the ranges partition the users,
	// in order, and differ in size by at most one.
	for users := 0; users <= 60; users++ {
		for shards := 1; shards <= 7; shards++ {
			next, lo, hi := 0, users, 0
			for i := range shards {
				first, n := Share{Index: i, Count: shards}.Users(users)
				if first != next {
					t.Fatalf("%d users / %d shards: shard %d starts at %d, want %d", users, shards, i, first, next)
				}
				next += n
				lo, hi = min(lo, n), max(hi, n)
			}
			if next != users || hi-lo > 1 {
				t.Fatalf("%d users / %d shards: %d covered, sizes %d–%d", users, shards, next, lo, hi)
			}
		}
	}
	if first, n := (Share{}).Users(42); first != 0 || n != 42 {
		t.Errorf("the zero share has [%d, +%d); want all 42 users", first, n)
	}
}

func TestArrivalsAndRatesSplitExactly(t *testing.T) {
	for shards := 1; shards <= 5; shards++ {
		var sum float64
		for i := range shards {
			sum += Share{Index: i, Count: shards}.Rate(3000)
		}
		if sum < 3000-1e-9 || sum > 3000+1e-9 {
			t.Errorf("%d shards: rates sum to %v, want 3000", shards, sum)
		}
		for k := range uint64(1000) {
			owners := 0
			for i := range shards {
				if (Share{Index: i, Count: shards}).Mine(k) {
					owners++
				}
			}
			if owners != 1 {
				t.Fatalf("%d shards: arrival %d has %d owners", shards, k, owners)
			}
		}
	}
}

func TestParseShare(t *testing.T) {
	if s, err := ParseShare("2/3"); err != nil || s != (Share{Index: 2, Count: 3}) {
		t.Errorf("2/3: %+v, %v", s, err)
	}
	for _, bad := range []string{"3/3", "-1/3", "1/0", "1", "a/3", "1/b", "0/5000"} {
		if _, err := ParseShare(bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want a one-line error", bad, err)
		}
	}
}

// coordinator serves n shards on a port of its own.
func coordinator(t *testing.T, s Server) (addr string, done <-chan served) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan served, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	go func() {
		o, err := s.Serve(ctx, ln)
		ch <- served{o, err}
	}()
	return ln.Addr().String(), ch
}

type served struct {
	o   *Outcome
	err error
}

func wait(t *testing.T, ch <-chan served) served {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(time.Minute):
		t.Fatal("the coordinator did not end")
	}
	return served{}
}

// shardClock is an in-process shard's own monotonic clock: its epoch is
// shifted from the coordinator's, as another machine's would be.
func shardClock(i int) time.Time { return epoch.Add(time.Duration(i*7-5) * time.Second) }

func register(ctx context.Context, addr string, i, n int, digest string, timeout time.Duration) (*Client, error) {
	return dial(ctx, addr, Hello{Index: i, Count: n, Digest: digest, Host: fmt.Sprintf("host%d", i)}, timeout, shardClock(i))
}

// onShards runs f on n in-process shards at once, each registered, and
// returns their errors.
func onShards(t *testing.T, addr string, n int, f func(i int, c *Client) error) []error {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := register(ctx, addr, i, n, "plan-a", 30*time.Second)
			if err != nil {
				errs[i] = err
				return
			}
			defer c.Close()
			errs[i] = f(i, c)
		}()
	}
	wg.Wait()
	return errs
}

func shardResult(i int) *result.Result {
	return &result.Result{Tool: result.Tool{Name: "searchbench"}, Shard: &result.Shard{Index: i, Count: 3}}
}

func TestShardsStartTogether(t *testing.T) {
	addr, done := coordinator(t, Server{Shards: 3})
	starts := make([][]Start, 3)
	phases := []string{"prepared", "users=10", "users=50"}
	errs := onShards(t, addr, 3, func(i int, c *Client) error {
		for _, ph := range phases {
			stop := ""
			if i == 1 && ph == "users=50" {
				stop = "p99 exploded"
			}
			s, err := c.Start(context.Background(), ph, stop)
			if err != nil {
				return err
			}
			starts[i] = append(starts[i], s)
		}
		return c.Submit(context.Background(), shardResult(i))
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	s := wait(t, done)
	if s.err != nil || s.o.Partial() || s.o.Starts != len(phases)-1 { // the last is called off
		t.Fatalf("coordinator: %v, %+v", s.err, s.o)
	}
	for i, r := range s.o.Results {
		if r == nil || r.Shard.Index != i || s.o.Hosts[i] != fmt.Sprintf("host%d", i) {
			t.Errorf("result %d: %+v, host %q", i, r, s.o.Hosts[i])
		}
	}
	for p := range phases {
		for i := range 3 {
			a := starts[i][p]
			// Each shard's clock is offset from the coordinator's by its
			// epoch's shift; the estimate is within RTT/2 of it.
			shift := epoch.Sub(shardClock(i))
			if d := (a.Offset - shift).Abs(); a.RTT <= 0 || d > a.RTT/2+time.Microsecond {
				t.Errorf("shard %d %s: offset %v, true %v, rtt %v", i, phases[p], a.Offset, shift, a.RTT)
			}
			// The agreed instant, converted by each shard to its own clock,
			// is the same real instant within the offsets' errors.
			b := starts[0][p]
			if d := a.At.Sub(b.At).Abs(); d > (a.RTT+b.RTT)/2+time.Microsecond {
				t.Errorf("%s: shard %d starts %v from shard 0 (rtts %v, %v)", phases[p], i, d, a.RTT, b.RTT)
			}
			wantStop := ""
			if phases[p] == "users=50" {
				wantStop = "shard 1: p99 exploded"
			}
			if a.Stop != wantStop {
				t.Errorf("shard %d %s: stop %q, want %q (any shard's stop stops all)", i, phases[p], a.Stop, wantStop)
			}
		}
	}
}

func TestRegistrationTimeoutNamesTheMissingShard(t *testing.T) {
	addr, done := coordinator(t, Server{Shards: 3, RegisterTimeout: 500 * time.Millisecond})
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = register(context.Background(), addr, i, 3, "plan-a", 20*time.Second)
		}()
	}
	s := wait(t, done)
	wg.Wait()
	want := "shard 2 did not register within 500ms"
	if s.err == nil || !errors.Is(s.err, ErrNotRegistered) || !strings.Contains(s.err.Error(), want) {
		t.Errorf("coordinator: %v; want %q", s.err, want)
	}
	for i, err := range errs {
		if err == nil || !errors.Is(err, ErrNotRegistered) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("shard %d: %v; want one line with %q", i, err, want)
		}
	}
}

func TestAShardThatDiesIsNamedAndTheOthersFinish(t *testing.T) {
	addr, done := coordinator(t, Server{Shards: 3})
	errs := onShards(t, addr, 3, func(i int, c *Client) error {
		if _, err := c.Start(context.Background(), "users=10", ""); err != nil {
			return err
		}
		if i == 2 {
			return c.Close() // dies mid-run
		}
		s, err := c.Start(context.Background(), "users=50", "")
		if err != nil || s.Stop != "" {
			return fmt.Errorf("second start: %+v, %v", s, err)
		}
		return c.Submit(context.Background(), shardResult(i))
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("shard %d: %v", i, err)
		}
	}
	s := wait(t, done)
	if s.err != nil {
		t.Fatal(s.err)
	}
	if !s.o.Partial() || len(s.o.Missing) != 1 || s.o.Results[2] != nil || s.o.Results[0] == nil || s.o.Results[1] == nil {
		t.Fatalf("outcome: %+v", s.o)
	}
	if why := s.o.Missing[2]; !strings.Contains(why, "connection closed") || !strings.Contains(why, `"users=10"`) {
		t.Errorf("shard 2 missing because %q; want its connection closed after users=10", why)
	}
}

func TestAnotherPlanIsRefused(t *testing.T) {
	registered := make(chan string, 10)
	addr, done := coordinator(t, Server{Shards: 2, Logf: func(f string, a ...any) {
		if line := fmt.Sprintf(f, a...); strings.Contains(line, "registered from") {
			registered <- line
		}
	}})
	first := make(chan error, 1)
	go func() {
		c, err := register(context.Background(), addr, 0, 2, "plan-a", 30*time.Second)
		if err == nil {
			err = c.Submit(context.Background(), shardResult(0))
			c.Close()
		}
		first <- err
	}()
	<-registered
	_, err := register(context.Background(), addr, 1, 2, "plan-b", 30*time.Second)
	var refused *Refused
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "another plan") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a shard of another plan: %v; want a one-line refusal", err)
	}
	// The slot stays open for a shard of the right plan.
	c, err := register(context.Background(), addr, 1, 2, "plan-a", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Submit(context.Background(), shardResult(1)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if s := wait(t, done); s.err != nil || s.o.Partial() {
		t.Errorf("coordinator: %v, %+v", s.err, s.o)
	}
}

func TestAnInterruptedCoordinatorKeepsWhatCameIn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan served, 1)
	go func() {
		o, err := (&Server{Shards: 2, StopTimeout: 300 * time.Millisecond}).Serve(ctx, ln)
		got <- served{o, err}
	}()
	// Shard 0 sends its result; shard 1 is still running when the
	// coordinator is interrupted, and does not heed its stop.
	release := make(chan struct{})
	sent := make(chan error, 1)
	go onShards(t, ln.Addr().String(), 2, func(i int, c *Client) error {
		if i == 0 {
			err := c.Submit(context.Background(), shardResult(0))
			sent <- err
			return err
		}
		<-release
		return nil
	})
	defer close(release)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	cancel()
	s := wait(t, got)
	if s.err != nil || s.o.Reason != "interrupted" || s.o.Results[0] == nil || !strings.Contains(s.o.Missing[1], "did not come in within 300ms") {
		t.Errorf("outcome %+v, %v", s.o, s.err)
	}
}

// An interrupted coordinator asks the shards to stop and send what they
// measured: a shard in a level sends its result, partial; a shard waiting
// at a start gives up waiting and sends its own; the outcome has them all,
// and says it was interrupted.
func TestAnInterruptedCoordinatorAsksTheShardsForWhatTheyMeasured(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan served, 1)
	go func() {
		o, err := (&Server{Shards: 3}).Serve(ctx, ln)
		got <- served{o, err}
	}()
	sent, waiting := make(chan struct{}), make(chan struct{})
	// Shard 1 sends its result once shard 2 gave up its start, and shard 2
	// its own after shard 1's: the start the coordinator then sends shard
	// 2 (called off) is due to the call it gave up, and must not be taken
	// for the answer to its result.
	gaveUp, oneSent := make(chan struct{}), make(chan struct{})
	why := make([]string, 3)
	errs := make(chan []error, 1)
	go func() {
		errs <- onShards(t, ln.Addr().String(), 3, func(i int, c *Client) error {
			if _, err := c.Start(context.Background(), "users=10", ""); err != nil {
				return err
			}
			switch i {
			case 0: // done before the interrupt
				defer close(sent)
				return c.Submit(context.Background(), shardResult(0))
			case 1: // in a level: stops when told, as the runner does
				defer close(oneSent)
				select {
				case <-c.Stopped():
				case <-time.After(time.Minute):
					return errors.New("never told to stop")
				}
				<-gaveUp
			case 2: // at the next start, which the stop calls off
				sctx, stop := context.WithCancel(context.Background())
				go func() { <-c.Stopped(); stop() }()
				close(waiting)
				if _, err := c.Start(sctx, "users=50", ""); !errors.Is(err, context.Canceled) {
					return fmt.Errorf("the start: %v; want it given up when told to stop", err)
				}
				close(gaveUp)
				<-oneSent
			}
			why[i] = c.StopReason()
			r := shardResult(i)
			r.Partial, r.Reason = true, "stopped by the coordinator"
			return c.Submit(context.Background(), r) // the call given up above does not stand in its way
		})
	}()
	<-sent
	<-waiting
	cancel()
	s := wait(t, got)
	for i, err := range <-errs {
		if err != nil {
			t.Errorf("shard %d: %v", i, err)
		}
	}
	if s.err != nil || s.o.Reason != "interrupted" || len(s.o.Missing) != 0 {
		t.Fatalf("outcome %+v, %v; want every result, interrupted", s.o, s.err)
	}
	for i, r := range s.o.Results {
		if r == nil || (i > 0 && !r.Partial) {
			t.Errorf("shard %d: result %+v", i, r)
		}
		if i > 0 && why[i] != "interrupted" {
			t.Errorf("shard %d: told to stop for %q; want interrupted", i, why[i])
		}
	}
}

func TestSkewsSpreadTheLates(t *testing.T) {
	ms := func(v float64) result.Duration { return result.Duration(v * float64(time.Millisecond)) }
	r := func(i int, lates ...float64) *result.Result {
		res := shardResult(i)
		for p, l := range lates {
			res.Shard.Starts = append(res.Shard.Starts, result.ShardStart{Phase: fmt.Sprint("p", p), Late: ms(l), RTT: ms(float64(i + 1))})
		}
		return res
	}
	got := Skews(r(0, 1, 5), r(1, 3, 2), r(2, 2), nil)
	// A repeated name is another start.
	rep := shardResult(0)
	rep.Shard.Starts = []result.ShardStart{{Phase: "x", Late: ms(1)}, {Phase: "x", Late: ms(9)}}
	if s := Skews(rep); len(s) != 2 || s[0].Skew != 0 {
		t.Errorf("a repeated phase: %+v; want two starts", s)
	}
	want := []PhaseSkew{
		{Phase: "p0", Shards: 3, Skew: 2 * time.Millisecond, Error: 2500 * time.Microsecond}, // rtts 1,2,3 ms: 1.5 + 1
		{Phase: "p1", Shards: 2, Skew: 3 * time.Millisecond, Error: 1500 * time.Microsecond},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("skews %+v; want %+v", got, want)
	}
}

// A coordinator's settings are checked as given, each fault one line
// naming the coordinate command's flag.
func TestServerValidate(t *testing.T) {
	ok := Server{Shards: 3, RegisterTimeout: DefaultRegisterTimeout, BarrierTimeout: DefaultBarrierTimeout, Lead: DefaultLead, StopTimeout: DefaultStopTimeout}
	if err := ok.Validate(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	for _, c := range []struct {
		set  func(*Server)
		want string
	}{
		{func(s *Server) { s.Shards = 0 }, "shards: 0 is out of range (1 to "},
		{func(s *Server) { s.Shards = MaxShards + 1 }, "shards: "},
		{func(s *Server) { s.RegisterTimeout = 0 }, "register-timeout: 0s must be > 0"},
		{func(s *Server) { s.BarrierTimeout = -time.Second }, "barrier-timeout: -1s must be > 0"},
		{func(s *Server) { s.Lead = 2 * time.Minute }, "lead: 2m0s must be in (0, 1m]"},
		{func(s *Server) { s.StopTimeout = 0 }, "stop-timeout: 0s must be in (0, 1h]"},
		{func(s *Server) { s.Shards, s.Lead = 0, 0 }, "shards: "},
	} {
		s := ok
		c.set(&s)
		if err := s.Validate(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q", s, err, c.want)
		}
	}
}
