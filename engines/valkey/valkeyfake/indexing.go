package valkeyfake

import (
	"sync"
	"time"
)

// mutateLocked queues key's current state for every index whose prefix
// matches it and returns what the writing client waits on, nil when no
// index matches (the client is not blocked). s.mu is held.
// As in valkey-search (IndexSchema::ProcessKeyspaceNotification), an index
// counts an ingested hash key when the mutation reaches it, if the hash has
// one of its attributes; field counters count when a writer applies it.
func (s *Server) mutateLocked(key string) *sync.WaitGroup {
	var wg *sync.WaitGroup
	h := s.hashes[key]
	for _, ix := range s.indexes {
		if !ix.matches(key) {
			continue
		}
		if wg == nil {
			wg = &sync.WaitGroup{}
		}
		if h != nil && ix.tracks(h) {
			s.ingestKeys.Add(1)
		}
		ix.queue++
		wg.Add(1)
		s.writerQueue.Add(1)
		go s.apply(ix, key, wg)
	}
	return wg
}

// wait holds a writing client until its mutations are applied; while it
// waits it counts as blocked (ingest_hash_blocked). Nil groups are
// mutations no index took.
func (s *Server) wait(groups ...*sync.WaitGroup) {
	counted := false
	for _, g := range groups {
		if g == nil {
			continue
		}
		if !counted {
			s.blocked.Add(1)
			defer s.blocked.Add(-1)
			counted = true
		}
		g.Wait()
	}
}

// apply is one writer job: it takes a writer slot, then brings ix up to the
// key's current state.
func (s *Server) apply(ix *index, key string, wg *sync.WaitGroup) {
	defer wg.Done()
	s.writers.acquire()
	s.writerQueue.Add(-1)
	defer s.writers.release()
	if s.opts.IndexDelay > 0 {
		time.Sleep(s.opts.IndexDelay)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ix.queue--
	if s.indexes[ix.name] != ix {
		return // dropped meanwhile
	}
	h, ok := s.hashes[key]
	if !ok {
		delete(ix.docs, key)
		return
	}
	d, counts, failures := ix.ingest(h)
	ix.failures += int64(failures)
	n := 0
	for t, k := range counts {
		s.ingestFields[t].Add(int64(k))
		n += k
	}
	if n == 0 {
		delete(ix.docs, key)
		return
	}
	ix.docs[key] = d
}

// limiter is a resizable counting semaphore: the writer pool, whose size
// CONFIG SET search.writer-threads changes at run time.
type limiter struct {
	mu    sync.Mutex
	cond  *sync.Cond
	limit int
	used  int
}

func newLimiter(n int) *limiter {
	l := &limiter{limit: n}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *limiter) acquire() {
	l.mu.Lock()
	for l.used >= l.limit {
		l.cond.Wait()
	}
	l.used++
	l.mu.Unlock()
}

func (l *limiter) release() {
	l.mu.Lock()
	l.used--
	l.mu.Unlock()
	l.cond.Broadcast()
}

func (l *limiter) resize(n int) {
	l.mu.Lock()
	l.limit = n
	l.mu.Unlock()
	l.cond.Broadcast()
}
