package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines/amgixnow/amgixfake"
	"github.com/searchbench/searchbench/engines/elasticsearch/esfake"
	"github.com/searchbench/searchbench/engines/meilisearch/meilifake"
	"github.com/searchbench/searchbench/engines/typesense/typesensefake"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
	"github.com/searchbench/searchbench/runner/result"
)

// The product workload live on PostgreSQL + pgvector: every query kind
// (kNN with and without filters, SKU lookups, hybrid) under the mixed
// workload's writes, the searches' latency split by kind, and recall@10
// against the exact answers idle and under load.
func TestProductWorkloadOnPostgres(t *testing.T) {
	t.Parallel()
	needPostgres(t)
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "run", "--engine", "postgres", "--corpus", "product", "--dim", "32",
		"--ids", "3000", "--queries", "knn=3,knn-category=2,knn-price=2,sku=2,hybrid=1", "--users", "4", "--known-items", "0.2",
		"--run-name", runName(dir), "--spawn-rate", "1000", "--settle", "200ms", "--measure", "3s", "--out", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	r := readResult(t, dir)
	if r.Corpus.Queries != "knn=3,knn-category=2,knn-price=2,sku=2,hybrid=1" {
		t.Errorf("corpus queries %q", r.Corpus.Queries)
	}
	if g := r.GroundTruth; g == nil || g.Queries != 100 || g.Documents != r.Corpus.Prepopulated || g.Dim != 32 || g.Seconds <= 0 {
		t.Fatalf("ground truth %+v", g)
	}
	e := r.Engines[0]
	if e.Relevance == nil || len(e.Relevance.Exact) != 4 {
		t.Fatalf("idle relevance %+v; want recall against exact answers for knn, knn-category, knn-price and sku", e.Relevance)
	}
	for _, x := range e.Relevance.Exact {
		if x.Checks == 0 || x.Recall < 0.9 || (x.Kind == "sku" && x.Recall != 1) {
			t.Errorf("idle %s: %+v; want recall@10 ≥ 0.9 (1 for SKUs)", x.Kind, x)
		}
		t.Logf("idle %s: recall@10 %.3f (%d of %d)", x.Kind, x.Recall, x.Found, x.Expected)
	}
	l := e.Levels[0]
	searchedEveryKind(t, l)
	for _, x := range l.KnownItems.Exact {
		if x.Checks > 0 && x.Recall < 0.8 {
			t.Errorf("under load %s: %+v", x.Kind, x)
		}
		t.Logf("under load %s: recall@10 %.3f (%d of %d, %d checks, %d skipped)", x.Kind, x.Recall, x.Found, x.Expected, x.Checks, x.Skipped)
	}
	if !strings.Contains(stderr, "exact answers of 100 sample queries") {
		t.Errorf("the log does not state the ground truth's cost:\n%s", stderr)
	}
	for _, want := range []string{"latency by query kind", "Recall against exact answers", "query mix (weights)", "exact answers (ground truth)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the tables lack %q:\n%s", want, stdout)
		}
	}
}

// The product workload against every driver's wire-contract fake: each
// kind of query the driver accepts is sent, under writes, and answered
// without error; the fakes' kNN is exact, so recall against the exact
// answers is 1 on the idle index. A kind a driver's configuration cannot
// answer is refused before anything starts.
func TestProductWorkloadOnEveryFake(t *testing.T) {
	t.Parallel()
	all := "knn=3,knn-category=2,knn-price=2,sku=2,hybrid=1"
	for _, c := range []struct {
		engine string
		// opts are the run's driver options; refuse, options under which
		// a kind of the mix is refused, and the refusal's words.
		opts, refuse []string
		why          string
		// skuTrap: SKU lookups whose category code is a stop word miss
		// (valkey-search's default stop list drops "it" from "IT-500"
		// when it indexes; the exact index of option hybrid avoids it).
		skuTrap bool
	}{
		{"typesense", nil, []string{"--option", "fields=text,tag,numeric"}, "typesense cannot run hybrid queries", false},
		{"meilisearch", nil, []string{"--option", "fields=text,tag,numeric"}, "meilisearch cannot run hybrid queries", false},
		{"elasticsearch", nil, []string{"--option", "fields=text,tag,numeric"}, "elasticsearch cannot run hybrid queries", false},
		{"amgix-now-sync", nil, []string{"--option", "fields=text,tag,numeric"}, "amgix-now-sync cannot run hybrid queries", false},
		{"valkey", nil, []string{"--option", "hybrid=on"}, "valkey cannot run hybrid queries", true},
	} {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			url, flags := startFake(t, c.engine)
			dir := t.TempDir()
			args := append([]string{"run", "--engine", c.engine, "--url", url, "--corpus", "product", "--dim", "16", "--ids", "400",
				"--queries", all, "--mix", "search=70,upsert=25,delete=5", "--users", "2", "--known-items", "0.2",
				"--spawn-rate", "1000", "--settle", "100ms", "--measure", "1s", "--exact-queries", "40", "--out", dir}, append(flags, c.opts...)...)
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s\n%s", code, stderr, stdout)
			}
			e := readResult(t, dir).Engines[0]
			s, _ := e.Levels[0].Op("search")
			if s.ErrorCount() != 0 || len(s.Kinds) != 5 {
				t.Fatalf("searches %+v; want every kind, no error", s)
			}
			for _, k := range s.Kinds {
				if k.Count == 0 {
					t.Errorf("%s: no call", k.Kind)
				}
			}
			// Time inside the run is split by kind too: the intervals'
			// kinds add up to the window's, and the interval log has a
			// histogram of each.
			perKind := map[string]int64{}
			for _, iv := range e.Levels[0].Timeline.Intervals {
				o, _ := iv.Op("search")
				for _, k := range o.Kinds {
					perKind[k.Kind] += k.Count
				}
			}
			hlog, err := os.ReadFile(filepath.Join(dir, result.HlogName))
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range s.Kinds {
				if perKind[k.Kind] != k.Count {
					t.Errorf("%s: the intervals hold %d calls, the window %d", k.Kind, perKind[k.Kind], k.Count)
				}
				if !strings.Contains(string(hlog), "/search:"+k.Kind+",") {
					t.Errorf("%s has no histogram in %s", k.Kind, result.HlogName)
				}
			}
			if e.Relevance == nil || len(e.Relevance.Exact) != 4 {
				t.Fatalf("idle relevance %+v", e.Relevance)
			}
			for _, x := range e.Relevance.Exact {
				switch {
				case x.Kind == "sku" && c.skuTrap:
					if x.Checks == 0 || x.Recall >= 1 {
						t.Errorf("idle sku: %+v; want the lookups of stop-word codes missed", x)
					}
				case x.Checks == 0 || x.Recall != 1:
					t.Errorf("idle %s: %+v; want recall 1 from an exact kNN", x.Kind, x)
				}
			}
			refused := append(append([]string{"run", "--dry-run", "--engine", c.engine, "--url", url, "--corpus", "product",
				"--queries", all, "--out", t.TempDir()}, flags...), c.refuse...)
			if code, _, stderr := runCLI(t, context.Background(), refused...); code != exitBadInput || !strings.Contains(stderr, c.why) {
				t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.refuse, code, stderr, c.why)
			}
		})
	}
}

// startFake starts the named engine's wire-contract fake for a test and
// returns its URL and the flags a run against it needs.
func startFake(t *testing.T, engine string) (url string, flags []string) {
	t.Helper()
	switch engine {
	case "typesense":
		const key = "product-key"
		f := typesensefake.New(key)
		t.Cleanup(f.Close)
		return f.URL, []string{"--api-key", key}
	case "meilisearch":
		f := meilifake.New(meilifake.Options{})
		t.Cleanup(f.Close)
		return f.URL, nil
	case "elasticsearch":
		f := esfake.New(esfake.Options{})
		t.Cleanup(f.Close)
		return f.URL(), nil
	case "amgix-now-sync":
		f := amgixfake.New()
		t.Cleanup(f.Close)
		return f.URL, nil
	case "valkey":
		f, err := valkeyfake.New(valkeyfake.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f.URL(), nil
	}
	t.Fatalf("no fake for %s", engine)
	return "", nil
}

// searchedEveryKind checks that a level of the five-kind product mix
// searched with every kind — calls, latencies, no errors, in the table's
// order — and ran known-item checks against exact answers under load.
func searchedEveryKind(t *testing.T, l result.Level) {
	t.Helper()
	s, _ := l.Op("search")
	var kinds []string
	for _, k := range s.Kinds {
		kinds = append(kinds, k.Kind)
		if k.Count == 0 || k.Latency.P50 <= 0 || len(k.Errors) > 0 {
			t.Errorf("kind %s: %+v; want calls, latencies and no errors", k.Kind, k)
		}
		t.Logf("%s: %d calls, p50 %.2f ms, p99 %.2f ms", k.Kind, k.Count, k.Latency.P50, k.Latency.P99)
	}
	if !slices.Equal(kinds, []string{"knn", "knn-category", "knn-price", "sku", "hybrid"}) {
		t.Errorf("kinds %v; want every kind of the mix", kinds)
	}
	if l.KnownItems == nil || len(l.KnownItems.Exact) == 0 {
		t.Fatalf("known items %+v; want checks against exact answers under load", l.KnownItems)
	}
}

// An ann-benchmarks euclidean file end to end against the fakes, whose kNN
// is exact: the engines that index L2 are asked for it and answer by it,
// the exact answers are ranked by it and agree with the file's own
// neighbours (numpy's), so idle recall is 1 — as it would not be were any
// link of the chain still cosine (the file's cosine and L2 neighbours
// differ: dataset/vectorfile's TestCheckEuclidean). The engines without an
// L2 index are refused before anything starts.
func TestEuclideanFileOnTheFakes(t *testing.T) {
	t.Parallel()
	file := filepath.Join("..", "..", "dataset", "vectorfile", "testdata", "euclidean.hdf5")
	for _, c := range []struct {
		engine  string
		refused string // the refusal's words, for an engine without L2
	}{
		{"elasticsearch", ""},
		{"amgix-now-sync", ""},
		{"valkey", ""},
		{"typesense", "no Euclidean distance"},
		{"meilisearch", "cosine only"},
	} {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			url, flags := startFake(t, c.engine)
			dir := t.TempDir()
			args := append([]string{"run", "--engine", c.engine, "--url", url, "--corpus", "product", "--vectors", file,
				"--prepopulate", "1", "--queries", "knn=1", "--mix", "search", "--users", "2",
				"--settle", "100ms", "--measure", "500ms", "--exact-queries", "20", "--out", dir}, flags...)
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if c.refused != "" {
				if code != exitBadInput || !strings.Contains(stderr, c.refused) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
					t.Fatalf("exit %d, %q; want exit 2 and one line with %q", code, stderr, c.refused)
				}
				if _, err := os.Stat(filepath.Join(dir, "result.json")); err == nil {
					t.Error("a refused run wrote a result")
				}
				return
			}
			if code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s\n%s", code, stderr, stdout)
			}
			if !strings.Contains(stderr+stdout, "the exact answers agree with") {
				t.Errorf("no agreement with the file's neighbours logged:\n%s", stderr)
			}
			res := readResult(t, dir)
			if len(res.Warnings) != 0 {
				t.Errorf("warnings %v", res.Warnings)
			}
			e := res.Engines[0]
			if e.Relevance == nil || len(e.Relevance.Exact) != 1 {
				t.Fatalf("idle relevance %+v", e.Relevance)
			}
			if x := e.Relevance.Exact[0]; x.Kind != "knn" || x.Checks == 0 || x.Recall != 1 {
				t.Errorf("idle knn by L2: %+v; want recall 1 from an exact L2 kNN", x)
			}
		})
	}
}
