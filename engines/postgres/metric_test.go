package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/postgres"
)

// metricOps are each metric's pgvector operator class and distance
// operator (pgvector 0.8.6, README "HNSW" and "Querying"; sql/vector.sql):
// an HNSW index answers ORDER BY only on its own class's operator.
var metricOps = []struct {
	metric            engines.Metric
	opclass, operator string
}{
	{engines.Cosine, "vector_cosine_ops", "<=>"},
	{engines.L2, "vector_l2_ops", "<->"},
	{engines.Dot, "vector_ip_ops", "<#>"},
}

// The schema's metric picks the HNSW index's operator class and the
// distance operator of every statement that ranks by the vector — the kNN
// alone, with a lookup, and the hybrid's vector side — so that the index
// can answer them; a metric the driver does not know is refused.
func TestMetricSQL(t *testing.T) {
	for _, m := range metricOps {
		schema := productSchema()
		schema.Fields[len(schema.Fields)-1].Metric = m.metric
		ddl, err := postgres.DDL(engines.Config{}, schema)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`CREATE INDEX ON "product" USING hnsw ("embedding" %s)`, m.opclass); !strings.Contains(strings.Join(ddl, "\n"), want) {
			t.Errorf("%s: DDL has no %s:\n%s", m.metric, want, strings.Join(ddl, "\n"))
		}
		vec := []float32{1, 0, 0, 0}
		for _, q := range []engines.Query{
			{Vector: vec, K: 5},
			{Vector: vec, K: 5, Filters: []engines.Filter{{Field: "category", Tag: "toys"}}},
			{Vector: vec, K: 5, Field: "sku", Text: "IT-500"},
			{Vector: vec, K: 5, Text: "chair"},
		} {
			sql, _, err := postgres.SearchSQL(engines.Config{}, schema, q)
			if err != nil {
				t.Fatal(err)
			}
			if want := `"embedding" ` + m.operator + " $"; !strings.Contains(sql, want) {
				t.Errorf("%s, %s search: no %q in\n%s", m.metric, q.Shape(), want, sql)
			}
			for _, other := range metricOps {
				if other.metric != m.metric && strings.Contains(sql, other.operator) {
					t.Errorf("%s, %s search: %s's operator %s in\n%s", m.metric, q.Shape(), other.metric, other.operator, sql)
				}
			}
		}
	}
	schema := productSchema()
	schema.Fields[len(schema.Fields)-1].Metric = engines.Dot + 1
	var se *engines.SchemaError
	if err := engines.CheckSchema("postgres", engines.Config{}, schema); !errors.As(err, &se) {
		t.Errorf("CheckSchema with metric %d: %v, want a SchemaError", engines.Dot+1, err)
	}
}

// Every metric, on pgvector 0.8.6: the exact three nearest by it
// (enginetest.Metrics), as the planner answers (five rows: a sequential
// scan) and through the HNSW index (the sequential scan and the sort
// priced out, as TestProductKNNOnTheHNSWIndex does) — where EXPLAIN of the
// very statement Search sends must scan the metric's index, which it can
// only when the statement's operator is the index's class's.
func TestMetrics(t *testing.T) {
	url, secret, _ := server(t, container.Options{CPUs: 1})
	forced := url + "&enable_seqscan=off&enable_bitmapscan=off&enable_sort=off"
	all := []engines.Metric{engines.Cosine, engines.L2, engines.Dot}
	for _, c := range []struct{ name, url string }{{"Planned", url}, {"OnTheIndex", forced}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := engines.Config{URL: c.url, Password: engines.Secret(secret)}
			enginetest.Metrics(t, "postgres", cfg, func(t *testing.T) engines.Engine {
				e, err := engines.Open(context.Background(), "postgres", cfg)
				if err != nil {
					t.Fatal(err)
				}
				return e
			}, all, 5*time.Second)
		})
	}
	c := rawConn(t, forced, secret)
	for _, m := range all {
		schema := enginetest.MetricSchema("metric-"+m.String(), m)
		sql, args, err := postgres.SearchSQL(engines.Config{}, schema, engines.Query{Vector: []float32{1, 0, 0}, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		plan := explain(t, c, sql, args...)
		if want := fmt.Sprintf(`Index Scan using "metric-%s_embedding_idx"`, m); !strings.Contains(plan, want) {
			t.Errorf("%s: the forced plan does not scan the metric's HNSW index (%s):\n%s", m, want, plan)
		}
	}
}

// Attach holds a shard to the table shard 0 made: a schema of another
// metric than the table's HNSW index is refused, naming both, rather than
// answered by a scan of the whole table.
func TestAttachChecksTheMetric(t *testing.T) {
	url, secret, _ := server(t, container.Options{CPUs: 1})
	ctx := context.Background()
	cfg := engines.Config{URL: url, Password: engines.Secret(secret)}
	open := func() engines.Engine {
		e, err := engines.Open(ctx, "postgres", cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	if err := open().Create(ctx, enginetest.MetricSchema("attached", engines.L2)); err != nil {
		t.Fatal(err)
	}
	if err := open().(engines.Attacher).Attach(ctx, enginetest.MetricSchema("attached", engines.L2)); err != nil {
		t.Errorf("attach with the table's metric: %v", err)
	}
	err := open().(engines.Attacher).Attach(ctx, enginetest.MetricSchema("attached", engines.Cosine))
	if err == nil || !strings.Contains(err.Error(), "vector_cosine_ops") || !strings.Contains(err.Error(), "vector_l2_ops") {
		t.Errorf("attach with cosine to an L2 table: %v; want a refusal naming both classes", err)
	}
}
