package typesense

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/typesense/typesensefake"
)

// Cosine and Dot are accepted and answer their own exact nearest, end to
// end against the fake, which ranks ip by 1 − dot as Typesense does; L2,
// which Typesense 29.0 has no distance for, is refused by CheckSchema and
// Create.
func TestMetricsFake(t *testing.T) {
	srv := typesensefake.New(testKey)
	t.Cleanup(srv.Close)
	cfg := engines.Config{URL: srv.URL, APIKey: testKey}
	enginetest.Metrics(t, "typesense", cfg, func(t *testing.T) engines.Engine {
		e, err := engines.Open(context.Background(), "typesense", cfg)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}, []engines.Metric{engines.Cosine, engines.Dot}, time.Second)
}

// The collection's vector field: Cosine leaves vec_dist out (Typesense's
// default, which the server echoes as "cosine"), Dot sends "ip"; L2 is a
// SchemaError wrapping ErrUnsupported that says why, in one line. Attach
// takes a collection of the schema's metric and no other.
func TestMetricCollection(t *testing.T) {
	o, err := parseOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	for m, want := range map[engines.Metric]string{
		engines.Cosine: `{"name":"embedding","num_dim":3,"type":"float[]"}`,
		engines.Dot:    `{"name":"embedding","num_dim":3,"type":"float[]","vec_dist":"ip"}`,
	} {
		l, err := checkSchema(o, enginetest.MetricSchema("m", m))
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		for _, f := range l.fields {
			if f.Name == dataset.FieldEmbedding {
				if got, err = json.Marshal(f); err != nil {
					t.Fatal(err)
				}
			}
		}
		if string(got) != want {
			t.Errorf("%s: the embedding field is sent as %s; want %s", m, got, want)
		}
	}
	err = engines.CheckSchema("typesense", engines.Config{}, enginetest.MetricSchema("m", engines.L2))
	var se *engines.SchemaError
	if !errors.As(err, &se) || !errors.Is(err, engines.ErrUnsupported) || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "no Euclidean distance") {
		t.Errorf("CheckSchema with an L2 vector: %v; want a one-line SchemaError wrapping ErrUnsupported that says why", err)
	}

	srv := typesensefake.New(testKey)
	t.Cleanup(srv.Close)
	cfg := engines.Config{URL: srv.URL, APIKey: testKey}
	for _, m := range []engines.Metric{engines.Cosine, engines.Dot} {
		schema := enginetest.MetricSchema("metric-"+m.String(), m)
		e, err := engines.Open(context.Background(), "typesense", cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := e.Create(context.Background(), schema); err != nil {
			t.Fatal(err)
		}
		c, err := e.(*Engine).client.Collection(schema.Name).Retrieve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range c.Fields {
			if f.Name == dataset.FieldEmbedding && distName(f) != map[engines.Metric]string{engines.Cosine: "cosine", engines.Dot: "ip"}[m] {
				t.Errorf("%s: the collection's vec_dist is %s", m, distName(f))
			}
		}
		for _, other := range []engines.Metric{engines.Cosine, engines.Dot} {
			a, err := engines.Open(context.Background(), "typesense", cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			err = a.(engines.Attacher).Attach(context.Background(), enginetest.MetricSchema(schema.Name, other))
			if (err == nil) != (other == m) {
				t.Errorf("attach to a %s collection with a %s schema: %v", m, other, err)
			}
		}
	}
}
