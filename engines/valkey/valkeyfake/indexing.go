package valkeyfake

import (
	"slices"
	"sync"
	"time"
)

// mutateLocked queues key's current state for every index whose prefix
// matches it and returns what the writing client waits on, nil when no
// index matches (the client is not blocked). s.mu is held.
// As in valkey-search (src/index_schema.cc ProcessKeyspaceNotification,
// 1.2.1), every write or delete of a hash under an index's prefix is one
// ingested hash key for that index, whichever fields the hash holds.
func (s *Server) mutateLocked(key string) *held {
	var h *held
	for _, ix := range s.indexes {
		if !ix.matches(key) {
			continue
		}
		if h == nil {
			h = &held{applied: make(chan struct{})}
		}
		s.ingestKeys.Add(1)
		ix.queue++
		s.writerQueue.Add(1)
		go s.apply(ix, key, h)
	}
	return h
}

// held is a write's hold on its client: released once the first of the
// indexes that match the key has applied it. valkey-search 1.2.1 means to
// hold the client until every matching index has, but may release it when
// the first has (the driver's settings.writeMode says how); the fake does
// what the module may, so that a client that reads its write from another
// index at once finds it missing here too, every time, rather than on 1 in
// 200 writes there. Under one index the two are the same.
type held struct {
	once    sync.Once
	applied chan struct{}
}

func (h *held) release() { h.once.Do(func() { close(h.applied) }) }

// wait holds a writing client until each of its writes (nil: matched no
// index) is released, counted meanwhile as blocked (ingest_hash_blocked).
func (s *Server) wait(writes ...*held) {
	if !slices.ContainsFunc(writes, func(h *held) bool { return h != nil }) {
		return
	}
	s.blocked.Add(1)
	defer s.blocked.Add(-1)
	for _, h := range writes {
		if h != nil {
			<-h.applied
		}
	}
}

// apply is one writer job: a writer slot, then ix brought up to the key,
// then the write's hold released.
func (s *Server) apply(ix *index, key string, h *held) {
	defer h.release()
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
	hash, ok := s.hashes[key]
	if !ok {
		delete(ix.docs, key)
		return
	}
	s.applyLocked(ix, key, hash)
}

// applyLocked brings ix up to hash h of key. Every hash under the prefix
// is one of the index's documents (num_docs counts the keys it tracks,
// src/index_schema.cc: db_key_info_), whether or not it holds a field the
// index takes. s.mu is held.
func (s *Server) applyLocked(ix *index, key string, h map[string]string) {
	d, added, failures := ix.ingest(h, ix.docs[key])
	ix.failures += int64(failures)
	for t, n := range added {
		s.ingestFields[t].Add(int64(n))
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
