package esfake

import (
	"cmp"
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// field is one mapped field.
type field struct {
	typ string // text, keyword, a numeric type or dense_vector
	// indexed is the index parameter (default true). A text field with
	// index false cannot be searched; a keyword or number still can, from
	// its doc values, as in Elasticsearch.
	indexed bool
	// sub are a text or keyword field's multi-fields (the fields
	// parameter), by their own name; the index knows them as
	// "parent.name".
	sub map[string]*field
	// dims and similarity are a dense_vector's.
	dims       int
	similarity string
	// analyzer indexes a text field, searchAnalyzer analyses its queries.
	analyzer, searchAnalyzer *analyzer
	// def is the field's definition as it was given, which GET _mapping
	// echoes.
	def map[string]any
}

// index is one index: its settings and mapping, and its documents in two
// views. live is real-time (what a write, a delete or a version check sees);
// searchable is what search and _count see, as of the last refresh, exactly
// as a Lucene reader opened at that refresh would.
type index struct {
	name, uuid string
	replicas   int
	// refreshEvery ≤ 0: no periodic refresh. explicitRefresh: the
	// interval was set at creation, so the shard never goes search-idle.
	refreshEvery    time.Duration
	explicitRefresh bool
	idleAfter       time.Duration
	maxResultWindow int
	maxListeners    int
	dynamic         string // "true", "false", "strict"
	fields          map[string]*field
	settings        map[string]string // flattened, "index."-prefixed, as Elasticsearch echoes them

	stop       chan struct{} // closed when the index is deleted or the server closes
	stopOnce   sync.Once
	lastSearch atomic.Int64 // unix nanos of the last search or count

	mu       sync.RWMutex
	seqNo    int64
	live     map[string]*entry // every ID written; deleted ones as tombstones
	pending  []change          // writes since the last refresh, in order
	dirty    bool              // an operation since the last refresh
	visible  map[string]*doc
	nextOrd  int64         // the next visible document's place in index order
	released chan struct{} // closed (and replaced) at every refresh
	waiting  int           // refresh=wait_for requests waiting for the next refresh
}

// entry is an ID's real-time state.
type entry struct {
	version int64
	seqNo   int64 // of the last write or delete
	doc     *doc  // nil: deleted
}

// change is a write waiting for the next refresh; a nil doc deletes.
type change struct {
	id  string
	doc *doc
}

// doc is an indexed document.
type doc struct {
	id     string
	source json.RawMessage
	terms  map[string][]string // field → its terms, in order
	// numbers and vectors are the values of numeric and dense_vector
	// fields.
	numbers map[string][]float64
	vectors map[string][]float32
	ord     int64 // place in index order: ties in score go to the lower
}

// Defaults Elasticsearch gives an index.
const (
	defaultRefresh         = time.Second
	defaultIdleAfter       = 30 * time.Second
	defaultMaxResultWindow = 10000
	defaultMaxListeners    = 1000
)

// createIndex is PUT /{index}.
func (s *Server) createIndex(w http.ResponseWriter, r *request) *esError {
	name := r.segs[0]
	if e := cmp.Or(r.params("wait_for_active_shards", "timeout", "master_timeout"), checkIndexName(name)); e != nil {
		return e
	}
	body, e := r.jsonBody()
	if e != nil {
		return e
	}
	for k := range body {
		switch k {
		case "settings", "mappings":
		case "aliases":
			return notImplemented("aliases")
		default:
			return newError(http.StatusBadRequest, "parse_exception", "unknown key [%s] for create index", k)
		}
	}
	ix, e := s.newIndex(name, body["settings"], body["mappings"])
	if e != nil {
		return e
	}
	s.mu.Lock()
	if old := s.indices[name]; old != nil {
		s.mu.Unlock()
		e := newError(http.StatusBadRequest, "resource_already_exists_exception", "index [%s/%s] already exists", name, old.uuid)
		e.extra = map[string]any{"index_uuid": old.uuid, "index": name}
		return e
	}
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.indices[name] = ix
	s.mu.Unlock()
	ix.start()
	return ok(w, http.StatusOK, map[string]any{"acknowledged": true, "shards_acknowledged": true, "index": name})
}

// deleteIndex is DELETE /{index}.
func (s *Server) deleteIndex(w http.ResponseWriter, r *request) *esError {
	if e := cmp.Or(r.params("timeout", "master_timeout"), r.noBody(), r.oneIndex("deleting")); e != nil {
		return e
	}
	name := r.segs[0]
	s.mu.Lock()
	ix := s.indices[name]
	delete(s.indices, name)
	s.mu.Unlock()
	if ix == nil {
		return indexNotFound(name)
	}
	ix.close()
	return ok(w, http.StatusOK, map[string]any{"acknowledged": true})
}

// getMapping is GET /{index}/_mapping: {"<index>":{"mappings":{…}}}, each
// field as its definition gave it, and dynamic when it was not the default.
// An index that is not there is 404 index_not_found_exception (the request
// does not ignore unavailable indices by default).
func (s *Server) getMapping(w http.ResponseWriter, r *request) *esError {
	if e := cmp.Or(r.params("master_timeout"), r.noBody(), r.oneIndex("the mappings of")); e != nil {
		return e
	}
	ix, e := s.lookup(r.segs[0])
	if e != nil {
		return e
	}
	props := map[string]any{}
	for name, f := range ix.fields {
		if !strings.Contains(name, ".") { // a multi-field is in its parent's def
			props[name] = f.def
		}
	}
	m := map[string]any{"properties": props}
	if ix.dynamic != "true" {
		m["dynamic"] = ix.dynamic
	}
	return ok(w, http.StatusOK, map[string]any{ix.name: map[string]any{"mappings": m}})
}

// indexExists is HEAD /{index}: 200 or 404, no body.
func (s *Server) indexExists(w http.ResponseWriter, r *request) *esError {
	if ix, _ := s.lookup(r.segs[0]); ix == nil {
		w.WriteHeader(http.StatusNotFound)
	} else {
		w.WriteHeader(http.StatusOK)
	}
	return nil
}

// start begins the periodic refresh, as the index's refresh_interval says.
func (ix *index) start() {
	ix.lastSearch.Store(time.Now().UnixNano())
	if ix.refreshEvery <= 0 {
		return
	}
	go func() {
		t := time.NewTicker(ix.refreshEvery)
		defer t.Stop()
		for {
			select {
			case <-ix.stop:
				return
			case <-t.C:
				ix.scheduledRefresh()
			}
		}
	}()
}

// close stops the periodic refresh and frees every waiting write.
func (ix *index) close() {
	ix.stopOnce.Do(func() { close(ix.stop) })
}

// searchIdle: no search for index.search.idle.after. Only an index
// without an explicit refresh_interval skips refreshes while idle.
func (ix *index) searchIdle(now time.Time) bool {
	return now.Sub(time.Unix(0, ix.lastSearch.Load())) >= ix.idleAfter
}

// scheduledRefresh is the periodic refresh: it refreshes when something
// changed or a write waits, except on a search-idle shard without an
// explicit refresh_interval and with no one waiting (IndexShard.scheduledRefresh).
func (ix *index) scheduledRefresh() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.dirty && ix.waiting == 0 {
		return
	}
	if ix.waiting == 0 && !ix.explicitRefresh && ix.searchIdle(time.Now()) {
		return
	}
	ix.refreshLocked()
}

// refresh makes every write so far searchable (POST _refresh, refresh=true).
func (ix *index) refresh() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.refreshLocked()
}

func (ix *index) refreshLocked() {
	for _, c := range ix.pending {
		delete(ix.visible, c.id)
		if c.doc != nil {
			c.doc.ord = ix.nextOrd
			ix.nextOrd++
			ix.visible[c.id] = c.doc
		}
	}
	ix.pending, ix.dirty, ix.waiting = nil, false, 0
	close(ix.released)
	ix.released = make(chan struct{})
}

// oneIndex refuses a path naming several indices or a wildcard, which this
// fake does not resolve; doing names the request in the refusal.
func (r *request) oneIndex(doing string) *esError {
	if strings.ContainsAny(r.segs[0], "*,") || r.segs[0] == "_all" {
		return notImplemented("%s several indices or a wildcard", doing)
	}
	return nil
}

// refreshMode is a write's refresh parameter.
type refreshMode int

const (
	refreshNone refreshMode = iota
	refreshNow
	refreshWaitFor
)

// writeMode checks a write's URL parameters (and that a delete has no
// body) and returns its refresh parameter.
func (r *request) writeMode(bodyless bool, params ...string) (refreshMode, *esError) {
	e := r.params(params...)
	if e == nil && bodyless {
		e = r.noBody()
	}
	if e != nil {
		return 0, e
	}
	v, set := r.URL.Query()["refresh"]
	if !set {
		return refreshNone, nil
	}
	switch v[0] {
	case "false":
		return refreshNone, nil
	case "", "true":
		return refreshNow, nil
	case "wait_for":
		return refreshWaitFor, nil
	}
	return 0, badRequest("illegal_argument_exception", "Unknown value for refresh: [%s].", v[0])
}

// afterWrite applies the refresh parameter once a request's writes are in
// the live view, and reports whether a refresh was forced. wait_for waits
// for the next refresh, periodic or explicit, unless the shard already has
// index.max_refresh_listeners waiting: then it forces one
// (RefreshListeners.addOrNotify). A request whose client went away stops
// waiting.
func (ix *index) afterWrite(r *request, mode refreshMode) bool {
	switch mode {
	case refreshNow:
		ix.refresh()
		return true
	case refreshWaitFor:
		ix.mu.Lock()
		if ix.waiting >= ix.maxListeners {
			ix.refreshLocked()
			ix.mu.Unlock()
			return true
		}
		ix.waiting++
		ch := ix.released
		ix.mu.Unlock()
		select {
		case <-ch:
		case <-ix.stop:
		case <-r.Context().Done():
		}
	}
	return false
}

// shardsHeader is a write's _shards: one primary written, replicas that a
// single node cannot place counted in total, as Elasticsearch counts them.
func (ix *index) shardsHeader() map[string]any {
	return map[string]any{"total": 1 + ix.replicas, "successful": 1, "failed": 0}
}

// Visible is how many documents search sees in the index (as of its last
// refresh), and Live how many exist; both -1 without the index.
func (s *Server) Visible(indexName string) (visible, live int) {
	ix, _ := s.lookup(indexName)
	if ix == nil {
		return -1, -1
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for _, e := range ix.live {
		if e.doc != nil {
			live++
		}
	}
	return len(ix.visible), live
}

// Settings returns the index's settings as Elasticsearch would echo them
// (flattened, string values, "index." keys) and whether the index exists.
func (s *Server) Settings(indexName string) (map[string]string, bool) {
	ix, _ := s.lookup(indexName)
	if ix == nil {
		return nil, false
	}
	return maps.Clone(ix.settings), true
}

// health is GET /_cluster/health: green, or yellow while a replica cannot
// be placed on the single node. wait_for_status waits up to timeout (30s)
// and answers 408 with timed_out true when the status is not reached.
func (s *Server) health(w http.ResponseWriter, r *request) *esError {
	params := r.params("wait_for_status", "timeout", "master_timeout", "level", "local",
		"wait_for_no_relocating_shards", "wait_for_no_initializing_shards", "wait_for_nodes",
		"wait_for_active_shards", "wait_for_events")
	if e := cmp.Or(params, r.noBody()); e != nil {
		return e
	}
	q := r.URL.Query()
	timeout := 30 * time.Second
	if v := q.Get("timeout"); v != "" {
		var e *esError
		if timeout, e = timeSetting("timeout", v, false); e != nil {
			return e
		}
	}
	rank := map[string]int{"green": 0, "yellow": 1, "red": 2}
	want, waitFor := q.Get("wait_for_status"), q.Has("wait_for_status")
	if _, ok := rank[want]; waitFor && !ok {
		return badRequest("illegal_argument_exception", "unknown cluster health status [%s]", want)
	}
	s.mu.Lock()
	primaries, unassigned := 0, 0
	for _, ix := range s.indices {
		primaries++
		unassigned += ix.replicas
	}
	s.mu.Unlock()
	status := "green"
	if unassigned > 0 {
		status = "yellow"
	}
	code, timedOut := http.StatusOK, false
	if waitFor && rank[status] > rank[want] {
		// This fake's status changes only when an index is created or
		// deleted: wait out the timeout as Elasticsearch would.
		select {
		case <-time.After(timeout):
		case <-r.Context().Done():
			return nil
		}
		code, timedOut = http.StatusRequestTimeout, true
	}
	total := primaries + unassigned
	percent := 100.0
	if total > 0 {
		percent = 100 * float64(primaries) / float64(total)
	}
	return ok(w, code, map[string]any{
		"cluster_name": "esfake", "status": status, "timed_out": timedOut,
		"number_of_nodes": 1, "number_of_data_nodes": 1,
		"active_primary_shards": primaries, "active_shards": primaries,
		"relocating_shards": 0, "initializing_shards": 0, "unassigned_shards": unassigned,
		"unassigned_primary_shards": 0, "delayed_unassigned_shards": 0, "number_of_pending_tasks": 0,
		"number_of_in_flight_fetch": 0, "task_max_waiting_in_queue_millis": 0,
		"active_shards_percent_as_number": percent,
	})
}
