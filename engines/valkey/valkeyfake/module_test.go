package valkeyfake_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	vk "github.com/valkey-io/valkey-go"

	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
	"github.com/searchbench/searchbench/engines/valkey/valkeytest"
)

// The fake held to the module: its own tests' assertions, run against
// valkey-search 1.2.1 (the launcher's image, 1 CPU) in both protocols. An
// assertion that holds on the fake and not on the module is a difference
// of the fake's.
func TestFakeHeldToModule(t *testing.T) {
	m := valkeytest.StartModule(t, 1)
	for _, resp2 := range []bool{false, true} {
		c, err := vk.NewClient(vk.ClientOption{InitAddress: []string{m.Addr}, Password: m.Secret, DisableCache: true, ForceSingleClient: true, AlwaysRESP2: resp2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		for _, tc := range []struct {
			name string
			run  func(*testing.T, vk.Client, bool)
		}{
			{"Rejections", func(t *testing.T, c vk.Client, _ bool) { rejections(t, c) }},
			{"Matching", matching},
			{"KNNOrder", func(t *testing.T, c vk.Client, _ bool) { knnOrder(t, c) }},
			{"Hgetall", hgetall},
			{"Backfill", func(t *testing.T, c vk.Client, _ bool) { backfill(t, c) }},
		} {
			t.Run(fmt.Sprintf("%s/RESP2=%v", tc.name, resp2), func(t *testing.T) {
				m.Empty(t)
				tc.run(t, c, resp2)
			})
		}
	}
}

// replyScript is what TestRepliesAsModule sends, in order, to the fake and
// to the module: the driver's commands and the replies it reads, and the
// rejections the fake claims to share.
var replyScript = [][]string{
	{"FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "p:", "SCHEMA", "t", "TEXT", "c", "TAG", "SEPARATOR", ",", "CASESENSITIVE", "n", "NUMERIC",
		"v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "2", "DISTANCE_METRIC", "COSINE"},
	{"FT.CREATE", "exact", "ON", "HASH", "PREFIX", "1", "p:", "NOSTOPWORDS", "SCHEMA", "t", "TEXT"},
	{"FT.CREATE", "tags", "ON", "HASH", "PREFIX", "1", "p:", "SCHEMA", "c", "TAG", "n", "NUMERIC"},
	// One vector index per DISTANCE_METRIC over the same keys (the driver
	// sends the schema's metric); IP given in lower case and its pairs in
	// another order, which the module's parser takes.
	{"FT.CREATE", "cos", "ON", "HASH", "PREFIX", "1", "m:", "SCHEMA", "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "2", "DISTANCE_METRIC", "COSINE"},
	{"FT.CREATE", "l2", "ON", "HASH", "PREFIX", "1", "m:", "SCHEMA", "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "2", "DISTANCE_METRIC", "L2"},
	{"FT.CREATE", "ip", "ON", "HASH", "PREFIX", "1", "m:", "SCHEMA", "v", "VECTOR", "HNSW", "6", "DISTANCE_METRIC", "ip", "TYPE", "FLOAT32", "DIM", "2"},
	// The backfills end on each side's cron, at its own time; a scan that
	// passed the writes below would ingest them again (a refused field
	// then counted twice in hash_indexing_failures), so they wait.
	{awaitReady, "idx", "exact", "tags", "cos", "l2", "ip"},
	{"FT._LIST"},
	{"HSET", "p:1", "t", "The quiet laptop", "c", "office", "n", "10", "v", vec(1, 0)},
	{"HSET", "p:2", "t", "A loud speaker; it is IT-500", "c", "Office,toys", "n", "20.5", "v", vec(0, 1)},
	{"HSET", "p:3", "t", "quiet shovel", "c", "garden", "n", "cheap", "v", vec(1, 1)},
	{"HSET", "p:4", "v", "short"},
	{"HSET", "q:5", "t", "quiet elsewhere"},
	// Placed so that the metrics' orders differ for the query (1, 0): by
	// cosine b, a, c, d; by L2 a, d, b, c; by inner product c, b, a, d.
	{"HSET", "m:a", "v", vec(0.9, 0.1)},
	{"HSET", "m:b", "v", vec(5, 0)},
	{"HSET", "m:c", "v", vec(8, 6)},
	{"HSET", "m:d", "v", vec(0, 1)},
	{awaitIndexed, "idx", "exact", "tags", "cos", "l2", "ip"},
	{"FT.INFO", "idx"},
	{"FT.INFO", "exact"},
	{"FT.INFO", "tags"},
	{"FT.INFO", "l2"},
	{"FT.INFO", "ip"},
	{"FT.SEARCH", "idx", "quiet", "NOCONTENT", "LIMIT", "0", "10", "DIALECT", "2"},
	{"FT.SEARCH", "idx", "quiet | loud", "NOCONTENT", "LIMIT", "0", "0", "DIALECT", "2"},
	{"FT.SEARCH", "idx", "@c:{office}", "NOCONTENT", "DIALECT", "2"},
	{"FT.SEARCH", "idx", "@c:{Office}", "NOCONTENT", "DIALECT", "2"},
	{"FT.SEARCH", "idx", "@n:[10 20.5]", "NOCONTENT", "DIALECT", "2"},
	{"FT.SEARCH", "idx", `@t:"it 500"`, "NOCONTENT", "DIALECT", "2"},
	{"FT.SEARCH", "exact", `@t:"it 500"`, "NOCONTENT", "DIALECT", "2"},
	{"FT.SEARCH", "idx", "*=>[KNN 2 @v $vec]", "NOCONTENT", "LIMIT", "0", "2", "PARAMS", "2", "vec", vec(1, 0.1), "DIALECT", "2"},
	{"FT.SEARCH", "idx", "@c:{office}=>[KNN 5 @v $vec]", "NOCONTENT", "LIMIT", "0", "5", "PARAMS", "2", "vec", vec(1, 0.1), "DIALECT", "2"},
	{"FT.SEARCH", "idx", "(quiet | loud)=>[KNN 5 @v $vec]", "NOCONTENT", "LIMIT", "0", "5", "PARAMS", "2", "vec", vec(0, 1), "DIALECT", "2"},
	{"FT.SEARCH", "cos", "*=>[KNN 4 @v $vec]", "NOCONTENT", "LIMIT", "0", "4", "PARAMS", "2", "vec", vec(1, 0), "DIALECT", "2"},
	{"FT.SEARCH", "l2", "*=>[KNN 4 @v $vec]", "NOCONTENT", "LIMIT", "0", "4", "PARAMS", "2", "vec", vec(1, 0), "DIALECT", "2"},
	{"FT.SEARCH", "ip", "*=>[KNN 4 @v $vec]", "NOCONTENT", "LIMIT", "0", "4", "PARAMS", "2", "vec", vec(1, 0), "DIALECT", "2"},
	{"FT.SEARCH", "ip", "*=>[KNN 2 @v $vec]", "NOCONTENT", "LIMIT", "0", "2", "PARAMS", "2", "vec", vec(0, 1), "DIALECT", "2"},
	{"FT.SEARCH", "idx", "the", "NOCONTENT", "DIALECT", "2"},
	{"FT.SEARCH", "idx", "@c:{a", "NOCONTENT", "DIALECT", "2"},
	{"FT.SEARCH", "idx", "@n:[5 1]", "NOCONTENT", "DIALECT", "2"},
	{"FT.SEARCH", "idx", "@t:{a}", "NOCONTENT", "DIALECT", "2"},
	{"FT.SEARCH", "idx", "*=>[KNN 2 @v $vec]", "NOCONTENT", "PARAMS", "2", "vec", vec(1, 2, 3), "DIALECT", "2"},
	// The driver's knob (engines.Query.Knob) is EF_RUNTIME: its bounds and
	// the module's replies outside them.
	{"FT.SEARCH", "idx", "*=>[KNN 2 @v $vec EF_RUNTIME 50]", "NOCONTENT", "LIMIT", "0", "2", "PARAMS", "2", "vec", vec(1, 0.1), "DIALECT", "2"},
	{"FT.SEARCH", "idx", "*=>[KNN 2 @v $vec EF_RUNTIME $ef]", "NOCONTENT", "LIMIT", "0", "2", "PARAMS", "4", "vec", vec(1, 0.1), "ef", "1000000", "DIALECT", "2"},
	{"FT.SEARCH", "idx", "*=>[KNN 2 @v $vec EF_RUNTIME 0]", "NOCONTENT", "PARAMS", "2", "vec", vec(1, 0.1), "DIALECT", "2"},
	{"FT.SEARCH", "idx", "*=>[KNN 2 @v $vec EF_RUNTIME 1000001]", "NOCONTENT", "PARAMS", "2", "vec", vec(1, 0.1), "DIALECT", "2"},
	{"FT.SEARCH", "idx", "*=>[KNN 2 @v $vec EF_RUNTIME -1]", "NOCONTENT", "PARAMS", "2", "vec", vec(1, 0.1), "DIALECT", "2"},
	{"FT.SEARCH", "idx", "*=>[KNN 2 @v $vec EF_RUNTIME abc]", "NOCONTENT", "PARAMS", "2", "vec", vec(1, 0.1), "DIALECT", "2"},
	{"FT.SEARCH", "idx", "quiet", "NOCONTENT", "LIMIT", "0", "10001"},
	{"FT.SEARCH", "nosuch", "*", "NOCONTENT"},
	{"FT.CREATE", "idx", "SCHEMA", "t", "TEXT"},
	{"FT.CREATE", "x", "SCHEMA", "f", "BLOB"},
	{"FT.CREATE", "x", "SCHEMA", "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "2", "DISTANCE_METRIC", "Dot"},
	{"FT.CREATE", "x", "SCHEMA", "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "2", "distance_metric", "euclidean"},
	{"FT.INFO", "nosuch"},
	{"FT.DROPINDEX", "nosuch"},
	{"DEL", "p:1", "p:9"},
	{awaitIndexed, "idx", "exact", "tags"},
	{"FT.SEARCH", "idx", "quiet", "NOCONTENT", "DIALECT", "2"},
	{"FT.DROPINDEX", "tags"},
	{"FT._LIST"},
	{"CONFIG", "GET", "search.max-indexes"},
	{"CONFIG", "SET", "search.nosuch", "1"},
	{"HGETALL", "p:2"},
}

// unranked are the commands whose replies list names in no particular
// order (a non-vector search, FT._LIST): they are compared as sets. A
// search's total comes first, and stays first.
func unranked(cmd []string) (unordered bool, from int) {
	switch {
	case cmd[0] == "FT.SEARCH" && !strings.Contains(cmd[2], "=>"):
		return true, 1
	case cmd[0] == "FT._LIST":
		return true, 0
	}
	return false, 0
}

// TestRepliesAsModule sends replyScript to the fake and to the module and
// compares the replies, errors by their text: every difference is listed.
// What the fake does not model is masked by maskReply, each mask saying
// why.
func TestRepliesAsModule(t *testing.T) {
	m := valkeytest.StartModule(t, 1)
	m.Empty(t)
	real, err := vk.NewClient(vk.ClientOption{InitAddress: []string{m.Addr}, Password: m.Secret, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(real.Close)
	_, fake := client(t, valkeyfake.Options{})
	for _, cmd := range replyScript {
		if cmd[0] == awaitReady || cmd[0] == awaitIndexed {
			for _, c := range []vk.Client{real, fake} {
				waitInfo(t, c, cmd[0], cmd[1:]...)
			}
			continue
		}
		want, got := render(cmd, run(real, cmd...)), render(cmd, run(fake, cmd...))
		if want != got {
			t.Errorf("%.100q\n  module: %s\n  fake:   %s", strings.Join(cmd, " "), want, got)
		}
	}
}

// render is a reply as text: an error's message, or the value with its
// unmodelled figures masked and an unranked search's keys sorted.
func render(cmd []string, r vk.ValkeyResult) string {
	v, err := r.ToAny()
	if err != nil {
		return "error: " + err.Error()
	}
	v = maskReply(v)
	if unordered, from := unranked(cmd); unordered {
		if items, ok := v.([]any); ok && len(items) > from {
			names := append([]any(nil), items[from:]...)
			sort.Slice(names, func(i, j int) bool { return fmt.Sprint(names[i]) < fmt.Sprint(names[j]) })
			v = append(append([]any(nil), items[:from]...), names...)
		}
	}
	return fmt.Sprintf("%#v", v)
}

// awaitReady in replyScript waits, on each side, until the indexes named
// after it have finished their backfill: FT.INFO's state is "ready".
const awaitReady = "(await ready)"

// awaitIndexed waits, on each side, until the indexes named after it have
// applied every write: FT.INFO's mutation_queue_size is 0. The module
// holds a write's reply until the indexes have it only when one index
// matches the key: with several, the first index to finish can release
// the client before the next one has tracked the write (vmsdk
// BlockedClient's count per client reaches 0 and is erased, and the next
// index blocks the client anew while its unblock is pending:
// vmsdk/src/blocked_client.cc, src/index_schema.cc TrackMutatedRecord,
// 1.2.1; the driver's settings.writeMode has the figures).
const awaitIndexed = "(await indexed)"

// waitInfo polls FT.INFO until each index's state is "ready" (awaitReady)
// or its mutation_queue_size is "0" (awaitIndexed).
func waitInfo(t *testing.T, c vk.Client, step string, indexes ...string) {
	t.Helper()
	field, want := "state", "ready"
	if step == awaitIndexed {
		field, want = "mutation_queue_size", "0"
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, ix := range indexes {
		for {
			kv, err := run(c, "FT.INFO", ix).ToArray()
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for i := 0; i+1 < len(kv); i += 2 {
				if k, _ := kv[i].ToString(); k == field {
					got, _ = kv[i+1].ToString()
				}
			}
			if got == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s %q after 30 s", ix, field, got)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// masked are FT.INFO's figures the fake does not model: the memory the
// module's allocators hold.
var masked = map[string]bool{"user_indexed_memory": true}

// maskReply replaces the value after each masked name of a list of
// name/value pairs, at any depth.
func maskReply(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i := 0; i < len(x); i++ {
			if name, ok := x[i].(string); ok && masked[name] && i+1 < len(x) {
				out[i], out[i+1] = name, "(masked)"
				i++
				continue
			}
			out[i] = maskReply(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if masked[k] {
				out[k] = "(masked)"
			} else {
				out[k] = maskReply(e)
			}
		}
		return out
	}
	return v
}
