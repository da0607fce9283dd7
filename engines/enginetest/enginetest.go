// Package enginetest is the conformance suite every driver passes. A driver's
// test calls Run with a function that opens a fresh engine; the same suite runs
// against the embedded engine, containers, wire-contract fakes and live
// servers, so "passes the suite" means the same thing everywhere.
package enginetest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
)

// Options configure a suite run.
type Options struct {
	// Open returns a new engine, not yet Created. The suite closes it.
	Open func(t *testing.T) engines.Engine
	// Visibility is what the driver promises for a returned write. For
	// Acknowledged drivers the suite waits (Refresh when offered, otherwise
	// polling up to VisibleWithin) before it expects a search to see a write.
	Visibility engines.Visibility
	// VisibleWithin bounds that wait; 0 means 10 s.
	VisibleWithin time.Duration
	// Concurrency is how many goroutines the concurrency test runs; 0 means 8.
	Concurrency int
	// SilentMissingDelete: the engine acknowledges a delete before it knows
	// whether the ID existed (a Meilisearch task in acknowledged mode), so a
	// missing ID cannot be reported. The suite then accepts success or
	// NotFound for it, and nothing else.
	SilentMissingDelete bool
}

// Schema is the mixed workload's schema, as the runner creates it.
func Schema(name string) engines.Schema {
	return engines.Schema{Name: name, Fields: []engines.FieldSpec{
		{Name: "name", Type: engines.Text},
		{Name: "content", Type: engines.Text},
	}}
}

func doc(id, name, content string) engines.Document {
	return engines.Document{ID: id, Fields: []engines.Field{
		{Name: "name", Text: name},
		{Name: "content", Text: content},
	}}
}

// Tokens that no corpus word and no English stemmer rule touches, so a query
// for one matches exactly the documents that carry it.
const (
	tokenA  = "quokkazed"
	tokenB  = "wombatzed"
	tokenK  = "numbatzed"
	tokenNo = "xylophonezed"
)

type suite struct {
	Options
	t *testing.T
}

// Run runs the whole suite.
func Run(t *testing.T, o Options) {
	if o.Open == nil {
		t.Fatal("enginetest: Options.Open is nil")
	}
	if o.Visibility == "" {
		t.Fatal("enginetest: Options.Visibility is empty: say what a returned write means")
	}
	if o.VisibleWithin == 0 {
		o.VisibleWithin = 10 * time.Second
	}
	if o.Concurrency == 0 {
		o.Concurrency = 8
	}
	s := suite{Options: o, t: t}
	t.Run("CreateTwice", s.createTwice)
	t.Run("UpsertThenSearch", s.upsertThenSearch)
	t.Run("UpdateReplacesFields", s.updateReplaces)
	t.Run("DeleteRemoves", s.deleteRemoves)
	t.Run("DeleteMissingIsNotFound", s.deleteMissing)
	t.Run("NoMatchIsEmpty", s.noMatch)
	t.Run("TopKHonoured", s.topK)
	t.Run("CorpusDocuments", s.corpusDocuments)
	t.Run("GetterDescribed", s.getterDescribed)
	t.Run("Get", s.get)
	t.Run("Attach", s.attach)
	t.Run("Concurrent", s.concurrent)
}

// fresh opens and creates an engine with an index named after the test.
func (s suite) fresh(t *testing.T) (context.Context, engines.Engine) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	e := s.Open(t)
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	name := indexName(t)
	if err := e.Create(ctx, Schema(name)); err != nil {
		t.Fatalf("Create(%s): %v", name, err)
	}
	return ctx, e
}

// indexName is the index a test's fresh engine creates.
func indexName(t *testing.T) string {
	return strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
}

func mustUpsert(ctx context.Context, t *testing.T, e engines.Engine, d engines.Document) {
	t.Helper()
	if err := e.Upsert(ctx, d); err != nil {
		t.Fatalf("Upsert(%s): %v", d.ID, err)
	}
}

func search(ctx context.Context, t *testing.T, e engines.Engine, text string, k int) engines.Hits {
	t.Helper()
	h, err := e.Search(ctx, engines.Query{Text: text, K: k})
	if err != nil {
		t.Fatalf("Search(%q): %v", text, err)
	}
	if len(h.IDs) > k {
		t.Fatalf("Search(%q, k=%d) returned %d hits", text, k, len(h.IDs))
	}
	return h
}

// eventually waits, within the driver's visibility rule, until cond holds for
// a search; Searchable drivers get exactly one try.
func (s suite) eventually(ctx context.Context, t *testing.T, e engines.Engine, what string, cond func() bool) {
	t.Helper()
	if s.Visibility == engines.Searchable {
		if !cond() {
			t.Fatalf("%s: not true right after the write returned, though the driver says writes are searchable", what)
		}
		return
	}
	deadline := time.Now().Add(s.VisibleWithin)
	for {
		if r, ok := e.(engines.Refresher); ok {
			if err := r.Refresh(ctx); err != nil {
				t.Fatalf("Refresh: %v", err)
			}
		}
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true within %v", what, s.VisibleWithin)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s suite) createTwice(t *testing.T) {
	ctx, e := s.fresh(t)
	mustUpsert(ctx, t, e, doc("1", "alpha "+tokenA, "content"))
	// Creating again replaces the index: a benchmark starts from a known state.
	if err := e.Create(ctx, Schema("createtwice")); err != nil {
		t.Fatalf("second Create: %v", err)
	}
	mustUpsert(ctx, t, e, doc("2", "beta "+tokenB, "content"))
	s.eventually(ctx, t, e, "new index serves writes", func() bool {
		return slices.Equal(search(ctx, t, e, tokenB, 10).IDs, []string{"2"})
	})
	if h := search(ctx, t, e, tokenA, 10); len(h.IDs) != 0 {
		t.Fatalf("after a second Create the old document is still found: %v", h.IDs)
	}
}

func (s suite) upsertThenSearch(t *testing.T) {
	ctx, e := s.fresh(t)
	mustUpsert(ctx, t, e, doc("7", "The "+tokenA+" sat.", "Nothing else here."))
	mustUpsert(ctx, t, e, doc("8", "Another name.", "Paragraph one.\n\nThe "+tokenB+" ran."))
	s.eventually(ctx, t, e, "search by name finds document 7", func() bool {
		return slices.Equal(search(ctx, t, e, tokenA, 10).IDs, []string{"7"})
	})
	s.eventually(ctx, t, e, "search by content finds document 8", func() bool {
		return slices.Equal(search(ctx, t, e, tokenB, 10).IDs, []string{"8"})
	})
}

func (s suite) updateReplaces(t *testing.T) {
	ctx, e := s.fresh(t)
	mustUpsert(ctx, t, e, doc("3", "Old "+tokenA+".", "old content"))
	s.eventually(ctx, t, e, "first version found", func() bool {
		return slices.Equal(search(ctx, t, e, tokenA, 10).IDs, []string{"3"})
	})
	mustUpsert(ctx, t, e, doc("3", "New "+tokenB+".", "new content"))
	s.eventually(ctx, t, e, "second version replaces the first", func() bool {
		return slices.Equal(search(ctx, t, e, tokenB, 10).IDs, []string{"3"}) &&
			len(search(ctx, t, e, tokenA, 10).IDs) == 0
	})
	if c, ok := e.(engines.Counter); ok {
		s.eventually(ctx, t, e, "an update does not add a document", func() bool {
			n, err := c.Count(ctx)
			return err == nil && n == 1
		})
	}
}

func (s suite) deleteRemoves(t *testing.T) {
	ctx, e := s.fresh(t)
	mustUpsert(ctx, t, e, doc("4", tokenA, "x"))
	mustUpsert(ctx, t, e, doc("5", tokenA, "y"))
	s.eventually(ctx, t, e, "both documents found", func() bool {
		return len(search(ctx, t, e, tokenA, 10).IDs) == 2
	})
	if err := e.Delete(ctx, "4"); err != nil {
		t.Fatalf("Delete(4): %v", err)
	}
	s.eventually(ctx, t, e, "deleted document gone", func() bool {
		return slices.Equal(search(ctx, t, e, tokenA, 10).IDs, []string{"5"})
	})
}

func (s suite) deleteMissing(t *testing.T) {
	ctx, e := s.fresh(t)
	mustUpsert(ctx, t, e, doc("1", tokenA, "x"))
	for _, id := range []string{"999", "1"} {
		if id == "1" {
			if err := e.Delete(ctx, "1"); err != nil {
				t.Fatalf("Delete(1): %v", err)
			}
		}
		err := e.Delete(ctx, id)
		if s.SilentMissingDelete && err == nil {
			continue
		}
		if got := engines.Classify(err); got != engines.NotFound {
			t.Fatalf("Delete(missing %s) = %v, class %s; want class not_found", id, err, got)
		}
	}
}

func (s suite) noMatch(t *testing.T) {
	ctx, e := s.fresh(t)
	mustUpsert(ctx, t, e, doc("1", "A plain name.", "Plain content."))
	s.eventually(ctx, t, e, "document visible", func() bool {
		return len(search(ctx, t, e, "plain", 10).IDs) == 1
	})
	h := search(ctx, t, e, tokenNo, 10)
	if len(h.IDs) != 0 || h.Total > 0 {
		t.Fatalf("query matching nothing returned %v (total %d)", h.IDs, h.Total)
	}
}

func (s suite) topK(t *testing.T) {
	ctx, e := s.fresh(t)
	docs := make([]engines.Document, 15)
	for i := range docs {
		docs[i] = doc(fmt.Sprint(100+i), "Item "+tokenK+".", fmt.Sprintf("number %d", i))
	}
	load(ctx, t, e, docs)
	s.eventually(ctx, t, e, "all 15 match", func() bool {
		h := search(ctx, t, e, tokenK, 20)
		return len(h.IDs) == 15 && (h.Total < 0 || h.Total == 15)
	})
	for _, k := range []int{10, 3, 1} {
		if h := search(ctx, t, e, tokenK, k); len(h.IDs) != k {
			t.Fatalf("k=%d: got %d hits", k, len(h.IDs))
		}
	}
}

// load writes docs through the bulk capability when the driver has it.
func load(ctx context.Context, t *testing.T, e engines.Engine, docs []engines.Document) {
	t.Helper()
	if b, ok := e.(engines.BulkUpserter); ok {
		if err := b.UpsertBatch(ctx, docs); err != nil {
			t.Fatalf("UpsertBatch: %v", err)
		}
		return
	}
	for _, d := range docs {
		mustUpsert(ctx, t, e, d)
	}
}

// corpusDocuments loads real corpus documents and finds one by its name, so
// the analyzer copes with the corpus's text (capitals, periods, blank lines).
func (s suite) corpusDocuments(t *testing.T) {
	ctx, e := s.fresh(t)
	c, err := dataset.New(dataset.Config{Seed: 7, IDs: 200, Prepopulate: 1})
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]engines.Document, 0, 200)
	for id := uint32(1); id <= 200; id++ {
		d := c.Document(id, 0)
		docs = append(docs, doc(dataset.DocID(id), d.Name, d.Content))
	}
	load(ctx, t, e, docs)
	if cnt, ok := e.(engines.Counter); ok {
		s.eventually(ctx, t, e, "count is 200", func() bool {
			n, err := cnt.Count(ctx)
			return err == nil && n == 200
		})
	}
	// Searching a document's whole name must rank that document in the top
	// 10: it matches every word, the others only some.
	target := c.Document(42, 0)
	s.eventually(ctx, t, e, "known item in top 10", func() bool {
		return slices.Contains(search(ctx, t, e, target.Name, 10).IDs, "42")
	})
	if h := search(ctx, t, e, c.Query(1), 10); len(h.IDs) == 0 {
		t.Fatalf("corpus query %q found nothing in 200 documents", c.Query(1))
	}
}

func (s suite) concurrent(t *testing.T) {
	ctx, e := s.fresh(t)
	const ids, opsEach = 40, 150
	var wg sync.WaitGroup
	errs := make(chan error, s.Concurrency)
	for g := range s.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := dataset.NewRand(uint64(g))
			for i := range opsEach {
				id := fmt.Sprint(1 + r.Intn(ids))
				var err error
				switch r.Intn(10) {
				case 0, 1, 2, 3:
					err = e.Upsert(ctx, doc(id, fmt.Sprintf("%s %d %d", tokenA, g, i), "concurrent"))
				case 4:
					if err = e.Delete(ctx, id); engines.Classify(err) == engines.NotFound {
						err = nil
					}
				case 5:
					err = concurrentGet(ctx, e, id)
				default:
					_, err = e.Search(ctx, engines.Query{Text: tokenA + " concurrent", K: 10})
				}
				if err != nil {
					errs <- fmt.Errorf("goroutine %d op %d: %w", g, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Afterwards the index still behaves: write every ID once more and all
	// of them are there, exactly once each.
	docs := make([]engines.Document, ids)
	for i := range docs {
		docs[i] = doc(fmt.Sprint(1+i), "final "+tokenB, "after")
	}
	load(ctx, t, e, docs)
	s.eventually(ctx, t, e, "every ID present once", func() bool {
		h := search(ctx, t, e, tokenB, ids+10)
		ok := len(h.IDs) == ids
		if c, has := e.(engines.Counter); has && ok {
			n, err := c.Count(ctx)
			ok = err == nil && n == ids
		}
		return ok
	})
}

// concurrentGet is the concurrency test's get where the driver offers one
// (a search otherwise): the ID may be missing at any moment, but a document
// that is found must be the one asked for, written whole by one of the
// test's upserts.
func concurrentGet(ctx context.Context, e engines.Engine, id string) error {
	g, ok := e.(engines.Getter)
	if !ok {
		_, err := e.Search(ctx, engines.Query{Text: tokenA + " concurrent", K: 10})
		return err
	}
	d, err := g.Get(ctx, id)
	switch {
	case engines.Classify(err) == engines.NotFound:
		return nil
	case err != nil:
		return err
	case d.ID != id || !strings.HasPrefix(d.Text("name"), tokenA+" ") || d.Text("content") != "concurrent":
		return fmt.Errorf("Get(%s) = %+v: not a document the test wrote under that ID", id, d)
	}
	return nil
}

// getterDescribed checks that the driver's Description says what its
// engines do: Getter is true exactly when the engine implements
// engines.Getter (the runner refuses a mix with get on the Description's
// word, before any engine is opened).
//
// The suite is handed engines, not drivers, so it finds the Description
// through the registry: the drivers registered from the Go package that
// declares the engine's type (a package may register several, as Amgix
// Now's does; each must agree).
func (s suite) getterDescribed(t *testing.T) {
	e := s.Open(t)
	defer func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	_, implements := e.(engines.Getter)
	pkg := packageOf(e)
	found := 0
	for _, name := range engines.Drivers() {
		d, err := engines.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if packageOf(d) != pkg {
			continue
		}
		found++
		if got := d.Describe().Getter; got != implements {
			t.Errorf("driver %s: Describe().Getter = %v, but its engine (%T) implements engines.Getter: %v", name, got, e, implements)
		}
	}
	if found == 0 {
		t.Fatalf("no registered driver is declared in %q, the package of the engine's type %T: the Description cannot be checked", pkg, e)
	}
}

// packageOf is the import path of the package that declares v's type (or,
// for a pointer, the type it points to).
func packageOf(v any) string {
	rt := reflect.TypeOf(v)
	for rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	return rt.PkgPath()
}

// get checks the engine's document-by-ID call where it has one: a
// never-written ID is NotFound; an upserted document comes back with its ID
// and text exactly as written (a blank line, punctuation and non-ASCII
// letters, and a whole corpus document); an upsert of a new version
// replaces it; a deleted one is NotFound. Acknowledged drivers get the same
// wait as for a search.
func (s suite) get(t *testing.T) {
	ctx, e := s.fresh(t)
	g, ok := e.(engines.Getter)
	if !ok {
		t.Skipf("%T does not implement engines.Getter", e)
	}
	if d, err := g.Get(ctx, "404"); engines.Classify(err) != engines.NotFound {
		t.Fatalf("Get(never written) = %+v, %v (class %s); want class not_found", d, err, engines.Classify(err))
	}
	first := doc("g1", "Naïve café: the "+tokenA+".", "Paragraph one, with \"quotes\" & <tags>.\n\nThe "+tokenB+" ran.")
	mustUpsert(ctx, t, e, first)
	s.eventuallyGets(ctx, t, e, g, "g1", &first)

	second := doc("g1", "New "+tokenK+".", "new content")
	mustUpsert(ctx, t, e, second)
	s.eventuallyGets(ctx, t, e, g, "g1", &second)

	c, err := dataset.New(dataset.Config{Seed: 7, IDs: 200, Prepopulate: 1})
	if err != nil {
		t.Fatal(err)
	}
	cd := c.Document(42, 3)
	corpus := doc(dataset.DocID(42), cd.Name, cd.Content)
	load(ctx, t, e, []engines.Document{corpus})
	s.eventuallyGets(ctx, t, e, g, corpus.ID, &corpus)

	if err := e.Delete(ctx, "g1"); err != nil {
		t.Fatalf("Delete(g1): %v", err)
	}
	s.eventuallyGets(ctx, t, e, g, "g1", nil)
	// The other document is untouched by the delete.
	s.eventuallyGets(ctx, t, e, g, corpus.ID, &corpus)
}

// eventuallyGets waits, as eventually does, until Get(id) returns want's ID
// and text fields (want nil: until it is NotFound). Any other error fails
// at once; each different answer on the way is logged.
func (s suite) eventuallyGets(ctx context.Context, t *testing.T, e engines.Engine, g engines.Getter, id string, want *engines.Document) {
	t.Helper()
	what := fmt.Sprintf("Get(%s) is not found", id)
	if want != nil {
		what = fmt.Sprintf("Get(%s) returns the document as written last", id)
	}
	last := ""
	s.eventually(ctx, t, e, what, func() bool {
		d, err := g.Get(ctx, id)
		class := engines.Classify(err)
		if err != nil && class != engines.NotFound {
			t.Fatalf("Get(%s): %v (class %s)", id, err, class)
		}
		if seen := fmt.Sprintf("%+v, %v", d, err); seen != last {
			last = seen
			t.Logf("Get(%s) = %s", id, seen)
		}
		if want == nil || err != nil {
			return want == nil && class == engines.NotFound
		}
		if d.ID != want.ID {
			return false
		}
		for _, f := range want.Fields {
			if !slices.ContainsFunc(d.Fields, func(g engines.Field) bool { return g.Name == f.Name && g.Text == f.Text }) {
				return false
			}
		}
		return true
	})
}

// attach checks an engines.Attacher as a sharded run uses it: a second
// engine (another shard) attaches to the index the first created. Attaching
// to an index that is not there, or to one whose fields differ from the
// schema, fails with one line naming the index. Attaching empties nothing,
// and each engine then sees what the other writes and deletes.
func (s suite) attach(t *testing.T) {
	ctx, first := s.fresh(t)
	second := s.Open(t)
	t.Cleanup(func() {
		if err := second.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	a, ok := second.(engines.Attacher)
	if !ok {
		t.Skipf("%T does not implement engines.Attacher", second)
	}
	name := indexName(t)
	missing := name + "-missing"
	attachRefused(ctx, t, a, "an index that is not there", Schema(missing))
	// "description" is a text field every driver can index (Amgix Now's
	// documents have only name, description and content).
	wider := Schema(name)
	wider.Fields = append(wider.Fields, engines.FieldSpec{Name: "description", Type: engines.Text})
	attachRefused(ctx, t, a, "an index without one of the schema's fields", wider)

	mustUpsert(ctx, t, first, doc("1", "before "+tokenA, "written before the attach"))
	if err := a.Attach(ctx, Schema(name)); err != nil {
		t.Fatalf("Attach(%s) to the index another engine created: %v", name, err)
	}
	finds := func(e engines.Engine, token string, ids ...string) func() bool {
		return func() bool { return slices.Equal(search(ctx, t, e, token, 10).IDs, ids) }
	}
	s.eventually(ctx, t, second, "the attached engine finds what was written before it attached", finds(second, tokenA, "1"))
	mustUpsert(ctx, t, second, doc("2", "from the second "+tokenB, "x"))
	s.eventually(ctx, t, first, "the creating engine finds the attached one's write", finds(first, tokenB, "2"))
	mustUpsert(ctx, t, first, doc("3", "from the first "+tokenK, "y"))
	s.eventually(ctx, t, second, "the attached engine finds the creating one's write", finds(second, tokenK, "3"))
	if err := second.Delete(ctx, "1"); err != nil {
		t.Fatalf("Delete(1) through the attached engine: %v", err)
	}
	s.eventually(ctx, t, first, "the creating engine no longer finds what the attached one deleted", finds(first, tokenA))
	if g, ok := second.(engines.Getter); ok {
		want := doc("3", "from the first "+tokenK, "y")
		s.eventuallyGets(ctx, t, second, g, "3", &want)
	}
	if c, ok := second.(engines.Counter); ok {
		s.eventually(ctx, t, second, "the attached engine counts the index's 2 documents", func() bool {
			n, err := c.Count(ctx)
			return err == nil && n == 2
		})
	}
}

// attachRefused checks that a refuses to attach to schema's index, what
// it is, with one line naming the index: the line a shard's run stops
// with.
func attachRefused(ctx context.Context, t *testing.T, a engines.Attacher, what string, schema engines.Schema) {
	t.Helper()
	err := a.Attach(ctx, schema)
	switch {
	case err == nil:
		t.Fatalf("Attach to %s succeeded", what)
	case !strings.Contains(err.Error(), schema.Name):
		t.Fatalf("Attach to %s: %q does not name the index %s", what, err, schema.Name)
	case strings.Contains(err.Error(), "\n"):
		t.Fatalf("Attach to %s: the error is more than one line: %q", what, err)
	}
	t.Logf("Attach to %s: %v", what, err)
}
