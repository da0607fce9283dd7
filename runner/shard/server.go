package shard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/searchbench/searchbench/runner/event"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/searchbench/searchbench/runner/result"
)

// Coordinator defaults.
const (
	DefaultRegisterTimeout = 2 * time.Minute
	// DefaultBarrierTimeout bounds how long the shards that are ready for
	// a start wait for the others. It is long because shard 0 pre-populates
	// the index while the others wait at the first start.
	DefaultBarrierTimeout = 30 * time.Minute
	// DefaultLead is how far ahead of the moment every shard was ready the
	// agreed start lies: long enough for the answers to reach every shard
	// on a network, short next to a level.
	DefaultLead = 200 * time.Millisecond
	// DefaultStopTimeout bounds how long an interrupted coordinator waits
	// for the shards' results once it asked them to stop: a shard ends its
	// calls in flight, releases what it started and sends what it
	// measured.
	DefaultStopTimeout = 30 * time.Second
	// writeTimeout bounds each message the coordinator sends, so that one
	// stuck shard cannot hold the others.
	writeTimeout = 10 * time.Second
)

// Server is the coordinator: it waits for Shards shards to register, runs
// their synchronised starts and collects their results.
type Server struct {
	Shards          int
	RegisterTimeout time.Duration // 0: DefaultRegisterTimeout
	BarrierTimeout  time.Duration // 0: DefaultBarrierTimeout
	Lead            time.Duration // 0: DefaultLead
	// StopTimeout bounds how long Serve, once ctx ends, waits for the
	// results of the shards it asked to stop (0: DefaultStopTimeout).
	StopTimeout time.Duration
	// Logf, when set, receives a line for each registration, start, result
	// and loss.
	Logf func(format string, args ...any)
	// Events, when set, receives each event a registered shard streams
	// (its index, the event, how many it dropped so far) for a live
	// view. It is called on the shard's connection's reader, concurrently
	// for different shards: it must be safe for that, and quick.
	Events func(shard int, e event.Event, dropped int64)
}

// peer is one shard's connection.
type peer struct {
	conn   net.Conn
	enc    *json.Encoder
	wmu    sync.Mutex
	index  int
	host   string
	digest string
	plan   map[string]string // the digest by field
	ready  bool              // waiting at the current start
	phase  string            // the start it waits at
	stop   string
	done   bool // its result came in
	gone   bool // its connection closed or was dropped
	// stoppable: it heeds a stop (its hello said so).
	stoppable bool
}

func (p *peer) send(m message) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_ = p.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	return p.enc.Encode(m)
}

// inbound is what a connection's reader hands the coordinator's loop.
type inbound struct {
	p   *peer
	m   message
	err error // the connection ended
}

func (s *Server) logf(format string, args ...any) {
	if s.Logf != nil {
		s.Logf(format, args...)
	}
}

func (s *Server) withDefaults() Server {
	c := *s
	if c.RegisterTimeout <= 0 {
		c.RegisterTimeout = DefaultRegisterTimeout
	}
	if c.BarrierTimeout <= 0 {
		c.BarrierTimeout = DefaultBarrierTimeout
	}
	if c.Lead <= 0 {
		c.Lead = DefaultLead
	}
	if c.StopTimeout <= 0 {
		c.StopTimeout = DefaultStopTimeout
	}
	return c
}

// Validate reports the first setting out of range, in one line naming it
// as the coordinate command does ("register-timeout: 0s must be > 0").
// Settings are checked as given: Serve fills zero durations with the
// defaults, but a caller that takes them from a user validates first, so
// that a 0 the user wrote is refused rather than read as the default.
func (s *Server) Validate() error {
	if err := s.checkShards(); err != nil {
		return err
	}
	switch {
	case s.RegisterTimeout <= 0:
		return fmt.Errorf("register-timeout: %v must be > 0", s.RegisterTimeout)
	case s.BarrierTimeout <= 0:
		return fmt.Errorf("barrier-timeout: %v must be > 0", s.BarrierTimeout)
	case s.Lead <= 0 || s.Lead > time.Minute:
		return fmt.Errorf("lead: %v must be in (0, 1m]", s.Lead)
	case s.StopTimeout <= 0 || s.StopTimeout > time.Hour:
		return fmt.Errorf("stop-timeout: %v must be in (0, 1h]", s.StopTimeout)
	}
	return nil
}

func (s *Server) checkShards() error {
	if s.Shards < 1 || s.Shards > MaxShards {
		return fmt.Errorf("shards: %d is out of range (1 to %d)", s.Shards, MaxShards)
	}
	return nil
}

// Serve coordinates the shards that connect to ln until every registered
// shard has sent its result or is lost, or ctx ends; it closes ln. When
// ctx ends after every shard registered, Serve asks the shards to stop and
// send what they measured so far, and waits up to StopTimeout for their
// results: the Outcome's Reason is then "interrupted", and a shard whose
// result did not come in is in Missing. The
// error is non-nil when the run could not start: a shard did not register
// within RegisterTimeout (the error names it; the registered shards are
// told the same and end). After that everything is in the Outcome: a shard
// whose connection closes before its result came in is dropped from later
// starts and named in Missing, and the others carry on.
func (s *Server) Serve(ctx context.Context, ln net.Listener) (*Outcome, error) {
	cfg := s.withDefaults()
	if err := cfg.checkShards(); err != nil {
		ln.Close()
		return nil, err
	}
	l := &loop{
		Server: cfg, events: make(chan inbound), quit: make(chan struct{}),
		peers: make([]*peer, cfg.Shards),
		out: &Outcome{Results: make([]*result.Result, cfg.Shards), Hosts: make([]string, cfg.Shards),
			Missing: map[int]string{}},
	}
	var (
		conns sync.WaitGroup
		mu    sync.Mutex
		open  = map[net.Conn]bool{}
		shut  bool
	)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if shut {
				mu.Unlock()
				c.Close()
				return
			}
			open[c] = true
			conns.Add(1)
			mu.Unlock()
			go func() {
				defer conns.Done()
				l.read(c)
			}()
		}
	}()
	// On the way out every reader is unblocked (quit, closed connections)
	// and waited for, so Serve leaves no goroutine behind.
	defer func() {
		close(l.quit)
		ln.Close()
		mu.Lock()
		shut = true
		for c := range open {
			c.Close()
		}
		mu.Unlock()
		conns.Wait()
	}()
	return l.run(ctx)
}

// loop is one Serve's state; only run's goroutine touches it.
type loop struct {
	Server
	events chan inbound
	quit   chan struct{}
	peers  []*peer // registered, by index
	out    *Outcome
	// registered is how many shards are registered.
	registered int
	phase      string // the latest start released
	// stopping: ctx ended and the shards were asked to stop; every later
	// start is called off.
	stopping bool
	// barrier bounds the wait of the shards ready for a start; barrierC
	// is its channel while a start is pending, else nil.
	barrier  *time.Timer
	barrierC <-chan time.Time
}

// arm starts the barrier timeout when the first shard is ready for a start.
func (l *loop) arm() {
	if l.barrier == nil {
		l.barrier = time.NewTimer(l.BarrierTimeout)
	} else {
		l.barrier.Reset(l.BarrierTimeout)
	}
	l.barrierC = l.barrier.C
}

// read decodes a connection's messages: pings are answered here at once
// (they time the network, so they must not queue behind the loop), the
// rest go to the loop.
func (l *loop) read(c net.Conn) {
	p := &peer{conn: c, enc: json.NewEncoder(c), index: -1}
	dec := json.NewDecoder(c)
	// Until it has said who it is, a connection gets the registration
	// timeout; after that, a shard may be silent for a whole level.
	_ = c.SetReadDeadline(time.Now().Add(l.RegisterTimeout))
	first := true
	index := -1 // the shard's index once it said hello
	for {
		var m message
		err := dec.Decode(&m)
		if err == nil && m.Type == msgEvent {
			// Events bypass the loop: they must not queue behind a start.
			if index >= 0 && m.Event != nil && l.Events != nil {
				l.Events(index, *m.Event, m.Dropped)
			}
			continue
		}
		if err == nil && m.Type == msgHello && index < 0 {
			index = m.Index
		}
		if err == nil && m.Type == msgPing {
			if err = p.send(message{Type: msgPong, Now: int64(time.Since(epoch))}); err == nil {
				continue
			}
		}
		if first && err == nil {
			_ = c.SetReadDeadline(time.Time{})
			first = false
		}
		select {
		case l.events <- inbound{p: p, m: m, err: err}:
		case <-l.quit:
			c.Close()
			return
		}
		if err != nil {
			c.Close()
			return
		}
	}
}

// run is the coordinator's loop: registrations, starts, results and
// losses, until every registered shard is done or lost, the registration
// timeout passes (the error) or ctx ends.
func (l *loop) run(ctx context.Context) (*Outcome, error) {
	regTimer := time.NewTimer(l.RegisterTimeout)
	defer regTimer.Stop()
	regC := regTimer.C
	defer func() {
		if l.barrier != nil {
			l.barrier.Stop()
		}
	}()
	done := ctx.Done()
	var stopC <-chan time.Time // the wait for the stopped shards' results
	for {
		if l.registered == l.Shards && l.finished() {
			return l.out, nil
		}
		select {
		case <-done:
			if l.registered < l.Shards || !l.stop() {
				l.interrupted()
				return l.out, nil
			}
			done = nil
			stopTimer := time.NewTimer(l.StopTimeout)
			defer stopTimer.Stop()
			stopC = stopTimer.C
		case <-stopC:
			l.interrupted()
			return l.out, nil
		case <-regC:
			return nil, l.notRegistered()
		case <-l.barrierC:
			l.barrierExpired()
		case ev := <-l.events:
			if l.handle(ev) {
				regTimer.Stop()
				regC = nil
			}
		}
	}
}

// stop asks the live shards that heed it to stop and send what they
// measured so far, and says whether it asked any (the others are not
// waited for).
func (l *loop) stop() bool {
	l.stopping = true
	l.out.Reason = "interrupted"
	asked := 0
	for _, p := range l.live() {
		if !p.stoppable {
			continue
		}
		if err := p.send(message{Type: msgStop, Reason: "interrupted"}); err != nil {
			l.drop(p, "the stop could not be sent: "+err.Error())
			continue
		}
		asked++
	}
	if asked > 0 {
		l.logf("interrupted: asked %d %s to stop and send what they measured; waiting up to %v for their results", asked, plural(asked, "shard", "shards"), l.StopTimeout)
	}
	// Shards waiting at a start are told at once.
	l.release()
	return asked > 0
}

// interrupted names every shard whose result had not come in when ctx
// ended (or, when the shards were asked to stop, StopTimeout later); the
// shards still registering are told the run will not start.
func (l *loop) interrupted() {
	l.out.Reason = "interrupted"
	why := "the coordinator was interrupted before its result came in"
	if l.stopping {
		why = fmt.Sprintf("the coordinator was interrupted, and its result did not come in within %v", l.StopTimeout)
	}
	for _, p := range l.peers {
		switch {
		case p == nil || p.done || p.gone:
		case l.registered < l.Shards:
			_ = p.send(message{Type: msgFailed, Reason: "the coordinator was interrupted before every shard registered"})
			l.out.Missing[p.index] = why
		default:
			l.out.Missing[p.index] = why
		}
	}
	l.fillUnregistered("the coordinator was interrupted before it registered")
}

// notRegistered tells the registered shards that the others did not
// register in time, and is the error naming those.
func (l *loop) notRegistered() error {
	var missing []int
	for i, p := range l.peers {
		if p == nil {
			missing = append(missing, i)
		}
	}
	reason := missingText(missing, l.RegisterTimeout)
	for _, p := range l.peers {
		if p != nil {
			_ = p.send(message{Type: msgFailed, Reason: reason})
		}
	}
	return fmt.Errorf("%w: %s", ErrNotRegistered, reason)
}

// barrierExpired drops the shards not ready for the pending start and
// starts the others.
func (l *loop) barrierExpired() {
	l.barrierC = nil
	var late []int
	for _, p := range l.live() {
		if !p.ready {
			late = append(late, p.index)
		}
	}
	for _, i := range late {
		l.drop(l.peers[i], fmt.Sprintf("not ready for %q within %v of the first shard", l.waiting(), l.BarrierTimeout))
	}
	l.release()
}

// handle acts on one event of a connection, and says whether it was the
// registration that completed the run's shards.
func (l *loop) handle(ev inbound) (allRegistered bool) {
	p, m := ev.p, ev.m
	switch {
	case ev.err != nil && l.registered < l.Shards && p.index >= 0 && l.peers[p.index] == p:
		// Before the run starts a shard may come back.
		l.logf("shard %d left before every shard registered; it may register again", p.index)
		l.peers[p.index] = nil
		l.registered--
	case ev.err != nil:
		l.lost(p, ev.err)
	case m.Type == msgHello:
		return l.hello(p, m)
	case p.index < 0 || l.peers[p.index] != p:
		p.conn.Close() // spoke before registering
	case m.Type == msgReady:
		if !l.anyReady() {
			l.arm()
		}
		p.ready, p.phase, p.stop = true, m.Phase, m.Stop
		l.release()
	case m.Type == msgResult:
		l.received(p, m)
		l.release()
	default:
		l.drop(p, fmt.Sprintf("it sent an unknown message %q", m.Type))
	}
	return false
}

// hello registers a shard, or refuses it; when it is the last to register,
// every shard is welcomed and hello says so.
func (l *loop) hello(p *peer, m message) bool {
	if reason := l.admit(p, m); reason != "" {
		l.logf("refused a shard from %s: %s", p.conn.RemoteAddr(), reason)
		_ = p.send(message{Type: msgRefused, Reason: reason})
		p.conn.Close()
		return false
	}
	p.index, p.host, p.digest, p.plan, p.stoppable = m.Index, m.Host, m.Digest, m.Plan, m.Stoppable
	l.peers[m.Index] = p
	l.out.Hosts[m.Index] = m.Host
	l.registered++
	l.logf("shard %d/%d registered from %s (%s)", m.Index, l.Shards, p.conn.RemoteAddr(), m.Host)
	if l.registered < l.Shards {
		return false
	}
	l.logf("all %d shards registered", l.Shards)
	for _, q := range l.peers {
		if err := q.send(message{Type: msgWelcome, Barrier: int64(l.BarrierTimeout), Stream: l.Events != nil}); err != nil {
			l.drop(q, "the welcome could not be sent: "+err.Error())
		}
	}
	return true
}

// received keeps a shard's result, or drops the shard when it cannot be
// read.
func (l *loop) received(p *peer, m message) {
	var r result.Result
	if err := json.Unmarshal(m.Result, &r); err != nil {
		l.drop(p, "its result could not be read: "+err.Error())
		return
	}
	l.out.Results[p.index] = &r
	p.done = true
	delete(l.out.Missing, p.index)
	_ = p.send(message{Type: msgAck})
	l.logf("shard %d: result received", p.index)
}

// admit checks a hello; "" admits it.
func (l *loop) admit(p *peer, m message) string {
	switch {
	case p.index >= 0:
		return "it registered twice"
	case m.Count != l.Shards:
		return fmt.Sprintf("shard %d/%d: this coordinator runs %d shards", m.Index, m.Count, l.Shards)
	case m.Index < 0 || m.Index >= l.Shards:
		return fmt.Sprintf("shard index %d is out of range (0 to %d)", m.Index, l.Shards-1)
	case m.Digest == "":
		return fmt.Sprintf("shard %d sent no plan digest", m.Index)
	case l.peers[m.Index] != nil:
		return fmt.Sprintf("shard %d is already registered (from %s)", m.Index, l.peers[m.Index].conn.RemoteAddr())
	}
	for _, q := range l.peers {
		if q != nil && q.digest != m.Digest {
			return fmt.Sprintf("shard %d runs another plan than shard %d%s (plan digest %s, not %s): give every shard the same settings",
				m.Index, q.index, differing(q.plan, m.Plan), m.Digest, q.digest)
		}
	}
	return ""
}

// differing names the fields in which two plans' digests differ (each
// plan's digest by field): ": Closed.Measure differs", or "" when either
// shard sent none.
func differing(a, b map[string]string) string {
	if a == nil || b == nil {
		return ""
	}
	var diff []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			diff = append(diff, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diff = append(diff, k)
		}
	}
	switch slices.Sort(diff); {
	case len(diff) == 0:
		return ""
	case len(diff) == 1:
		return ": " + diff[0] + " differs"
	case len(diff) > maxNamed:
		return fmt.Sprintf(": %s and %d more differ", strings.Join(diff[:maxNamed], ", "), len(diff)-maxNamed)
	}
	return ": " + strings.Join(diff, ", ") + " differ"
}

// maxNamed bounds the fields a refusal names: a shard of another corpus
// differs in every document count and field.
const maxNamed = 5

// live are the shards that take part in later starts.
func (l *loop) live() []*peer {
	var out []*peer
	for _, p := range l.peers {
		if p != nil && !p.done && !p.gone {
			out = append(out, p)
		}
	}
	return out
}

func (l *loop) anyReady() bool {
	for _, p := range l.live() {
		if p.ready {
			return true
		}
	}
	return false
}

// waiting is the phase the ready shards wait at.
func (l *loop) waiting() string {
	for _, p := range l.live() {
		if p.ready {
			return p.phase
		}
	}
	return ""
}

// finished: no registered shard is still running.
func (l *loop) finished() bool { return len(l.live()) == 0 }

// release starts the waiting shards when every live one is ready, and says
// whether it did. Any shard's reason to stop stops them all, so that the
// shards' rungs and levels stay the same ones; shards that wait at
// different phases (they cannot run the same plan) are stopped too.
func (l *loop) release() bool {
	live := l.live()
	if len(live) == 0 {
		return false
	}
	stop := ""
	for _, p := range live {
		if !p.ready {
			return false
		}
		if p.phase != live[0].phase && stop == "" {
			stop = fmt.Sprintf("shard %d is at %q and shard %d at %q", live[0].index, live[0].phase, p.index, p.phase)
		}
		if p.stop != "" && stop == "" {
			stop = fmt.Sprintf("shard %d: %s", p.index, p.stop)
		}
	}
	if l.stopping && stop == "" {
		stop = "the coordinator was interrupted"
	}
	l.barrierC = nil
	at := int64(time.Since(epoch) + l.Lead)
	l.phase = live[0].phase
	if stop == "" {
		l.out.Starts++
	}
	for _, p := range live {
		p.ready, p.stop = false, ""
		if err := p.send(message{Type: msgStart, Phase: l.phase, At: at, Stop: stop}); err != nil {
			l.drop(p, "the start could not be sent: "+err.Error())
		}
	}
	if stop != "" {
		l.logf("%s: all %d shards stop (%s)", l.phase, len(live), stop)
	} else {
		l.logf("%s: %d shards start in %v", l.phase, len(live), l.Lead)
	}
	return true
}

// lost marks a shard whose connection ended.
func (l *loop) lost(p *peer, err error) {
	if p.index < 0 || l.peers[p.index] != p || p.done || p.gone {
		return
	}
	what := "its connection closed"
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		what = "its connection failed: " + err.Error()
	}
	l.drop(p, what)
	l.release()
}

// drop takes a shard out of the run, naming why its result is missing.
func (l *loop) drop(p *peer, why string) {
	if p.gone || p.done {
		return
	}
	p.gone = true
	p.conn.Close()
	when := "before the first start"
	if l.phase != "" {
		when = "after the start of " + fmt.Sprintf("%q", l.phase)
	}
	reason := why + ", " + when
	l.out.Missing[p.index] = reason
	l.logf("shard %d lost: %s", p.index, reason)
}

func (l *loop) fillUnregistered(reason string) {
	for i, p := range l.peers {
		if p == nil {
			l.out.Missing[i] = reason
		}
	}
}
