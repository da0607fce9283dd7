package esfake

import (
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
	typ string // text, keyword, double or dense_vector
	// indexed is the index parameter (default true). A text field with
	// index false cannot be searched; a keyword or double still can, from
	// its doc values, as in Elasticsearch.
	indexed bool
	// sub are a text field's multi-fields (the fields parameter), by
	// their own name; the index knows them as "parent.name".
	sub      map[string]*field
	dims     int      // a dense_vector's
	sim      string   // an indexed dense_vector's similarity (similarity.go); "" unindexed
	analyzer analyzer // a text field's
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
	// refreshEvery ≤ 0: no periodic refresh. explicitRefresh: the
	// interval was set at creation, so the shard never goes search-idle.
	refreshEvery    time.Duration
	explicitRefresh bool
	idleAfter       time.Duration
	strict          bool // dynamic strict: a new field is refused
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
	// numbers and vectors are the values of double and dense_vector
	// fields.
	numbers map[string]float64
	vectors map[string][]float32
	ord     int64 // place in index order: ties in score go to the lower
}

// Defaults of Elasticsearch's index.max_result_window and
// index.max_refresh_listeners, which the driver does not set.
const (
	maxResultWindow = 10000
	maxListeners    = 1000
)

// createIndex is PUT /{index}.
func (s *Server) createIndex(w http.ResponseWriter, r *request) *esError {
	name := r.segs[0]
	body, e := r.jsonBody()
	if e != nil {
		return e
	}
	for k := range body {
		if k != "settings" && k != "mappings" {
			return notImplemented("create index key [%s]", k)
		}
	}
	ix, e := s.newIndex(name, body)
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
// field as its definition gave it.
func (s *Server) getMapping(w http.ResponseWriter, r *request) *esError {
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
	if ix.strict {
		m["dynamic"] = "strict"
	}
	return ok(w, http.StatusOK, map[string]any{ix.name: map[string]any{"mappings": m}})
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

// refreshMode is a write's refresh parameter (its value is checked by
// serve).
type refreshMode string

const (
	refreshNow     refreshMode = "true"
	refreshWaitFor refreshMode = "wait_for"
)

func (r *request) refreshMode() refreshMode {
	v, set := r.URL.Query()["refresh"]
	if set && v[0] == "" {
		return refreshNow
	}
	return refreshMode(r.URL.Query().Get("refresh"))
}

// afterWrite applies the refresh parameter once a request's writes are in
// the live view, and reports whether a refresh was forced. wait_for waits
// for the next refresh, periodic or explicit, unless the shard already has
// index.max_refresh_listeners waiting: then it forces one
// (RefreshListeners.addOrNotify). A request whose client went away stops
// waiting.
func (ix *index) afterWrite(r *request) bool {
	switch r.refreshMode() {
	case refreshNow:
		ix.refresh()
		return true
	case refreshWaitFor:
		ix.mu.Lock()
		if ix.waiting >= maxListeners {
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

// shards is the _shards header of a write or refresh: the one primary.
var shards = map[string]any{"total": 1, "successful": 1, "failed": 0}

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
