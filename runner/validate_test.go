package runner

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/workload/corpus"
	"github.com/searchbench/searchbench/workload/corpus/product"
	"github.com/searchbench/searchbench/workload/corpus/text"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
	"github.com/searchbench/searchbench/runner/loops"
	"github.com/searchbench/searchbench/runner/shard"
	"github.com/searchbench/searchbench/workload"
)

// A Go program is told the field it set, by its Go name; the CLI's flag is
// on the error for runner/scenario to say it in the CLI's words.
func TestValidateNamesTheGoField(t *testing.T) {
	src := runnertest.Text(t, 100, 0.5)
	closed := func(f func(*loops.Config)) Plan {
		c := quickConfig(2)
		f(&c)
		return Plan{Source: src, Setups: []Setup{{Driver: "bleve"}}, Closed: &c}
	}
	ladder := loops.LadderConfig{Open: loops.OpenConfig{Workers: 0, Arrival: "constant", Calls: quickConfig().Calls},
		Rates: workload.Ladder{Start: 10, Step: 2, Stop: 20}, Duration: time.Second, Repeat: 1, Factor: 5, MinAchieved: 0.5, Explode: 50}
	for _, c := range []struct {
		plan           Plan
		msg, flagWords string
	}{
		{closed(func(c *loops.Config) { c.SpawnRate = 0 }), "Plan.Closed.SpawnRate: 0 must be > 0", "spawn-rate: 0 must be > 0"},
		{closed(func(c *loops.Config) { c.Timeout = 0 }), "Plan.Closed.Calls.Timeout: 0s must be > 0", "timeout: 0s must be > 0"},
		{closed(func(c *loops.Config) { c.Timeout = time.Hour }), "Plan.Closed.Calls.Timeout: 1h0m0s is longer than 10m0s: a hung engine would hold the run that long per call",
			"timeout: 1h0m0s is longer than 10m0s: a hung engine would hold the run that long per call"},
		{closed(func(c *loops.Config) { c.Known.Fraction = 2 }), "Plan.Closed.Calls.Known.Fraction: 2 must be in [0, 1]", "known-items: 2 must be in [0, 1]"},
		{closed(func(c *loops.Config) { c.Freshness.Gap = -1 }), "Plan.Closed.Freshness.Gap: -1ns must be ≥ 0 (0: the default)", "freshness-gap: -1ns must be ≥ 0 (0: the default)"},
		{Plan{Source: src, Setups: []Setup{{Driver: "bleve"}}, Ladder: &ladder}, "Plan.Ladder.Open.Workers: 0 is out of range (1 to 100000)", "workers: 0 is out of range (1 to 100000)"},
		{Plan{Source: src, Setups: []Setup{{Driver: "bleve"}, {Driver: "bleve", Config: engines.Config{DataDir: "x"}}}, Closed: ptr(quickConfig(1))},
			`Plan.Setups[1].Label: "bleve" is listed twice; give each setup its own label`, `engine: "bleve" is listed twice; give each setup its own label`},
	} {
		err := c.plan.Validate()
		var fe *field.Error
		if !errors.As(err, &fe) || err.Error() != c.msg || fe.Setting() != c.flagWords {
			t.Errorf("error %v (setting %q); want %q (setting %q)", err, settingOf(fe), c.msg, c.flagWords)
		}
	}
	// Another package's fault keeps its words, under the field.
	p := closed(func(*loops.Config) {})
	p.Setups = []Setup{{Driver: "bleve", Config: engines.Config{Options: map[string]string{"pool": "3"}}}}
	var fe *field.Error
	if err := p.Validate(); !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "Plan.Setups[0].Config: bleve") || fe.Setting() != fe.Err.Error() {
		t.Errorf("a driver's refusal: %v", err)
	}
}

func settingOf(fe *field.Error) string {
	if fe == nil {
		return ""
	}
	return fe.Setting()
}

// A nil *T in the Source interface is not == nil; Run used to call its
// methods and panic. So did a zero Text, with no corpus in it.
func TestATypedNilSourceIsAnError(t *testing.T) {
	for _, src := range []corpus.Source{(*text.Text)(nil), (*product.Products)(nil), text.Text{}} {
		res, err := Run(context.Background(), Plan{Source: src, Setups: []Setup{{Driver: "bleve"}}, Closed: ptr(quickConfig(1))}, nil)
		if err == nil || res != nil || !strings.HasPrefix(err.Error(), "Plan.Source: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("source %#v: result %v, error %v; want one line naming Plan.Source", src, res, err)
		}
	}
}

// A window too short to hold a call is refused before anything starts:
// --measure 1ns used to run every level and report no call, unwarned.
func TestAWindowTooShortIsRefused(t *testing.T) {
	c := quickConfig(1)
	c.Measure = time.Nanosecond
	if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), "Measure: 1ns is shorter than 100ms") {
		t.Errorf("measure 1ns: %v", err)
	}
	c.Measure = loops.MinWindow
	if err := c.Validate(); err != nil {
		t.Errorf("measure %v: %v", loops.MinWindow, err)
	}
	l := loops.LadderConfig{Open: loops.OpenConfig{Workers: 1, Arrival: "constant", Calls: c.Calls},
		Rates: workload.Ladder{Start: 10, Step: 2, Stop: 20}, Duration: time.Millisecond, Repeat: 1, Factor: 5, MinAchieved: 0.5, Explode: 50}
	if err := l.Validate(); err == nil || !strings.HasPrefix(err.Error(), "Duration: 1ms is shorter than 100ms") {
		t.Errorf("rung duration 1ms: %v", err)
	}
}

// What an embedded engine cannot use is refused, not ignored: credentials,
// and a corpus its index cannot hold.
func TestAnEmbeddedEngineRefusesWhatItCannotUse(t *testing.T) {
	for _, cfg := range []engines.Config{{Password: "p"}, {APIKey: "k"}, {Username: "u"}} {
		p := Plan{Source: runnertest.Text(t, 100, 0.5), Setups: []Setup{{Driver: "bleve", Config: cfg}}, Closed: ptr(quickConfig(1))}
		var fe *field.Error
		if err := p.Validate(); !errors.As(err, &fe) || !strings.Contains(err.Error(), "bleve is embedded") || !strings.HasPrefix(fe.Setting(), fe.Flag+": bleve is embedded") {
			t.Errorf("%+v: %v; want the credential refused", cfg, err)
		}
	}
	products, err := product.New(dataset.Config{Seed: 1, IDs: 100, Prepopulate: 0.5}, 8, dataset.QueryMix{})
	if err != nil {
		t.Fatal(err)
	}
	p := Plan{Source: products, Setups: []Setup{{Driver: "bleve"}}, Closed: ptr(quickConfig(1))}
	var fe *field.Error
	if err := p.Validate(); !errors.As(err, &fe) || !strings.HasPrefix(fe.Setting(), `corpus: bleve cannot index the "product" schema: field category: type tag is not supported`) {
		t.Errorf("the product corpus on bleve: %v", err)
	}
}

// A shard of another plan is refused naming the fields that differ, as
// merge names them, not with two digests alone.
func TestAShardOfAnotherPlanIsToldWhatDiffers(t *testing.T) {
	p := Plan{Source: runnertest.Text(t, 100, 0.5), Closed: ptr(quickConfig(2, 4)),
		Setups: []Setup{{Driver: "sharedmem", Config: engines.Config{URL: "mem://x"}}}, Shard: &ShardPlan{Index: 0, Count: 2}}
	q := p
	qc := *p.Closed
	qc.Measure = time.Second
	q.Closed = &qc
	if why := refusal(t, p, q); !strings.Contains(why, "another plan than shard 0: Closed.Measure differs") {
		t.Errorf("shard 1 of another plan: %q; want a refusal naming Closed.Measure", why)
	}
}

// Every setting that changes what the shards measure, the corpus's among
// them, is in the digest: a shard that differs in one is refused at
// registration, naming it, before any load; merge would refuse their
// results at the end ("corpus.hash differs"), with nothing written.
func TestAShardOfAnotherCorpusIsRefusedAtRegistration(t *testing.T) {
	products := func(seed uint64, dim int, queries string) corpus.Source {
		mix, err := dataset.ParseQueryMix(queries)
		if err != nil {
			t.Fatal(err)
		}
		src, err := product.New(dataset.Config{Seed: seed, IDs: 100, Prepopulate: 0.5}, dim, mix)
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	text := func(seed uint64, prepopulate float64) corpus.Source {
		c, err := dataset.New(dataset.Config{Seed: seed, IDs: 100, Prepopulate: prepopulate})
		if err != nil {
			t.Fatal(err)
		}
		return text.Text{Corpus: c}
	}
	for _, c := range []struct {
		a, b  corpus.Source
		field string
	}{
		{products(1, 8, ""), products(1, 8, "knn=1"), "Source.Queries"}, // --queries
		{text(1, 0.5), text(2, 0.5), "Source.Seed"},                     // a library's corpus seed apart from the calls'
		{text(1, 0.5), text(1, 0.505), "Source.Prepopulate"},            // the same count, other documents
		{products(1, 8, ""), products(1, 16, ""), "Source.Generator"},   // --dim
	} {
		p := Plan{Source: c.a, Closed: ptr(quickConfig(2)),
			Setups: []Setup{{Driver: "sharedmem", Config: engines.Config{URL: "mem://x"}}}, Shard: &ShardPlan{Index: 0, Count: 2}}
		q := p
		q.Source = c.b
		if p.Digest() == q.Digest() {
			t.Errorf("%s: two plans that differ in it have one digest", c.field)
			continue
		}
		if why := refusal(t, p, q); !strings.Contains(why, c.field) {
			t.Errorf("%s: the refusal %q does not name it", c.field, why)
		}
	}
	// What the histograms hold is this version's (merge compares it as
	// config.histogram): a shard of a version that records others differs.
	p := Plan{Source: text(1, 0.5), Closed: ptr(quickConfig(2))}
	if _, ok := p.DigestFields()["Histogram"]; !ok {
		t.Error("the digest does not cover what the histograms hold")
	}
}

// refusal registers plan p as shard 0 of 2 with a coordinator, then q as
// shard 1, and returns the reason q was refused ("" if it was not).
func refusal(t *testing.T, p, q Plan) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	registered := make(chan struct{}, 2)
	served := make(chan struct{})
	go func() {
		defer close(served)
		_, _ = (&shard.Server{Shards: 2, Logf: func(f string, a ...any) {
			if strings.Contains(f, "registered from") {
				registered <- struct{}{}
			}
		}}).Serve(ctx, ln)
	}()
	first := make(chan struct{})
	go func() {
		defer close(first)
		if c, err := shard.Dial(ctx, ln.Addr().String(), shard.Hello{Index: 0, Count: 2, Digest: p.Digest(), Plan: p.DigestFields()}, time.Minute); err == nil {
			c.Close()
		}
	}()
	<-registered
	c, err := shard.Dial(ctx, ln.Addr().String(), shard.Hello{Index: 1, Count: 2, Digest: q.Digest(), Plan: q.DigestFields()}, time.Minute)
	if err == nil {
		c.Close()
	}
	cancel()
	<-first
	<-served
	var refused *shard.Refused
	if !errors.As(err, &refused) {
		t.Errorf("shard 1 of another plan: %v; want a refusal", err)
		return ""
	}
	return refused.Reason
}
