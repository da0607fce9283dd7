package fakekit

import (
	"net/http"
	"net/url"
	"sync"
)

// Recorded is a request as a fake received it.
type Recorded struct {
	Method, Path string
	Query        url.Values
	Header       http.Header
	Body         []byte
}

// Requests counts the requests a fake received, every one (answered by a
// fault or not), under a key the fake chooses (its route pattern, or method
// and path), and keeps the last one under each key. The zero value is
// ready to use; it is safe for concurrent use.
type Requests struct {
	mu     sync.Mutex
	counts map[string]int
	total  int
	last   map[string]Recorded
}

// Add records r (whose body the fake has read as body) under key.
func (q *Requests) Add(key string, r *http.Request, body []byte) {
	rec := Recorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.counts == nil {
		q.counts, q.last = map[string]int{}, map[string]Recorded{}
	}
	q.counts[key]++
	q.total++
	q.last[key] = rec
}

// Count is how many requests were recorded under key; "" is every request.
func (q *Requests) Count(key string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if key == "" {
		return q.total
	}
	return q.counts[key]
}

// CountFunc is how many requests were recorded under the keys match
// accepts.
func (q *Requests) CountFunc(match func(key string) bool) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for k, c := range q.counts {
		if match(k) {
			n += c
		}
	}
	return n
}

// Last is the last request recorded under key, and whether there was one.
func (q *Requests) Last(key string) (Recorded, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	rec, ok := q.last[key]
	return rec, ok
}
