package valkeyfake_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	vk "github.com/valkey-io/valkey-go"

	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
)

func client(t *testing.T, opts valkeyfake.Options) (*valkeyfake.Server, vk.Client) {
	t.Helper()
	s, err := valkeyfake.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c, err := vk.NewClient(vk.ClientOption{InitAddress: []string{s.Addr()}, Password: opts.Password, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return s, c
}

func run(c vk.Client, args ...string) vk.ValkeyResult {
	return c.Do(context.Background(), c.B().Arbitrary(args[0]).Args(args[1:]...).Build())
}

func vec(fs ...float32) string {
	b := make([]byte, 4*len(fs))
	for i, f := range fs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return string(b)
}

// The fake refuses what valkey-search refuses, with its messages.
func TestRejections(t *testing.T) {
	_, c := client(t, valkeyfake.Options{})
	rejections(t, c)
}

func rejections(t *testing.T, c vk.Client) {
	if err := run(c, "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "p:", "SCHEMA", "t", "TEXT", "c", "TAG", "n", "NUMERIC",
		"v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "2", "DISTANCE_METRIC", "COSINE").Error(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"FT.CREATE", "x", "SCHEMA", "f", "BLOB"}, "Invalid field type for field `f`: Unknown argument `BLOB`"},
		{[]string{"FT.CREATE", "x", "BOGUS", "SCHEMA", "t", "TEXT"}, "Unexpected parameter `BOGUS`, expecting `SCHEMA`"},
		{[]string{"FT.CREATE", "x", "SCHEMA", "t", "TEXT", "t", "TAG"}, "Duplicate field in schema - t"},
		// A metric the module does not know, quoted as sent (ToEnum,
		// KeyValueParser::Parse).
		{[]string{"FT.CREATE", "x", "SCHEMA", "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "2", "distance_metric", "Dot"},
			"Invalid field type for field `v`: Error parsing value for the parameter `distance_metric` - Unknown argument `Dot`"},
		{[]string{"FT.CREATE", "idx", "SCHEMA", "t", "TEXT"}, "Index idx in database 0 already exists."},
		{[]string{"FT.SEARCH", "nosuch", "*"}, "Index with name 'nosuch' not found in database 0"},
		{[]string{"FT.DROPINDEX", "nosuch"}, "Index with name 'nosuch' not found in database 0"},
		{[]string{"FT.INFO", "nosuch"}, "Index with name 'nosuch' not found in database 0"},
		{[]string{"FT.SEARCH", "idx", "@c:{a"}, "Missing closing TAG bracket, '}'"},
		{[]string{"FT.SEARCH", "idx", "hello:world"}, "Invalid filter expression: `hello:world`. Unexpected character at position 6: `:`"},
		{[]string{"FT.SEARCH", "idx", "@n:[5 1]"}, "indicate an empty range"},
		{[]string{"FT.SEARCH", "idx", "@t:{a}"}, "`t` is not indexed as a tag field"},
		{[]string{"FT.SEARCH", "idx", "the"}, "Invalid Query Syntax"},
		// Match-all is only a KNN's pre-filter (src/query/search.cc
		// PreParseQueryString).
		{[]string{"FT.SEARCH", "idx", "*", "NOCONTENT", "DIALECT", "2"}, "Invalid query string syntax"},
		// A stop word alone on the left of an OR (FilterParser).
		{[]string{"FT.SEARCH", "idx", "the | hello"}, "Invalid Query Syntax"},
		{[]string{"FT.SEARCH", "idx", "*=>[KNN 2 @v $q]", "PARAMS", "2", "q", vec(1, 2, 3), "DIALECT", "2"}, "Error parsing vector similarity parameters: query vector blob size (12) does not match index's expected size (8)."},
		{[]string{"FT.SEARCH", "idx", "*=>[KNN 2 @v $q]", "PARAMS", "2", "r", vec(1, 2)}, "Parameter q not found."},
		{[]string{"FT.SEARCH", "idx", "*=>[KNN 2 @t $q]", "PARAMS", "2", "q", vec(1, 2)}, "Index field `t` is not a Vector index"},
		{[]string{"FT.SEARCH", "idx", "*=>[KNN 20000 @v $q]", "PARAMS", "2", "q", vec(1, 2)}, "KNN parameter must be a positive integer greater than 0 and cannot exceed 10000."},
		{[]string{"FT.SEARCH", "idx", "hello", "LIMIT", "0", "-1"}, "Error parsing value for the parameter `LIMIT` - `-1` is outside acceptable bounds"},
		{[]string{"FT.SEARCH", "idx", "hello", "NOSUCHOPTION"}, "Unexpected argument `NOSUCHOPTION`"},
		{[]string{"FT.SEARCH", "idx", strings.Repeat("a ", 6000)}, "Query string is too long, max length is 10240 bytes."},
		{[]string{"CONFIG", "SET", "search.nosuch", "1"}, "Unknown option or number of arguments for CONFIG SET - 'search.nosuch'"},
		{[]string{"NOSUCH"}, "unknown command 'NOSUCH'"},
	}
	for _, tc := range cases {
		err := run(c, tc.args...).Error()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.80q: error %v, want one containing %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
	// Valid forms pass.
	for _, args := range [][]string{
		{"FT.SEARCH", "idx", "hello | world", "NOCONTENT", "LIMIT", "0", "10000", "DIALECT", "2"},
		// LIMIT is not bounded (src/query/search.h LimitParameter).
		{"FT.SEARCH", "idx", "hello", "NOCONTENT", "LIMIT", "0", "10001"},
		{"FT.SEARCH", "idx", "hello the | world", "NOCONTENT"},
		{"FT.SEARCH", "idx", `@c:{a\-b | c} @n:[1 +inf] (x | y)`, "NOCONTENT"},
		{"FT.SEARCH", "idx", `@t:"exact phrase" word`, "NOCONTENT"},
		{"FT.SEARCH", "idx", "@c:{x}=>[KNN 2 @v $q EF_RUNTIME 20 AS dist]", "PARAMS", "2", "q", vec(1, 2), "NOCONTENT"},
	} {
		if err := run(c, args...).Error(); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
}

// Matching semantics: stop words, stems, tags, ranges; every hash under the
// prefix is a document, whether or not a field of it was taken.
func TestMatching(t *testing.T) {
	_, c := client(t, valkeyfake.Options{})
	matching(t, c, false)
}

func matching(t *testing.T, c vk.Client, resp2 bool) {
	must := func(args ...string) {
		t.Helper()
		if err := run(c, args...).Error(); err != nil {
			t.Fatal(err)
		}
	}
	must("FT.CREATE", "i", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT", "c", "TAG", "n", "NUMERIC")
	must("FT.CREATE", "exact", "PREFIX", "1", "d:", "NOSTOPWORDS", "SCHEMA", "t", "TEXT")
	must("FT.CREATE", "other", "PREFIX", "1", "e:", "SCHEMA", "t", "TEXT")
	// A backfill still scanning when the writes land ingests them again, and
	// the module then counts d:4's refused number twice (see replyScript).
	waitInfo(t, c, awaitReady, "i", "exact", "other")
	must("HSET", "d:1", "t", "The running dogs", "c", "Red,Blue", "n", "5")
	must("HSET", "d:2", "t", "A dog ran; it is IT-500", "c", "green", "n", "50")
	must("HSET", "x:3", "t", "running dogs elsewhere", "c", "red", "n", "5")
	must("HSET", "d:4", "n", "not a number")
	// Two indexes hold d:, so the module's reply to a write does not wait
	// for both (awaitIndexed).
	waitInfo(t, c, awaitIndexed, "i", "exact", "other")
	for q, want := range map[string]int64{
		"dogs":              2, // stemmed: "dogs" finds d:2's "dog"
		"dogs running":      1, // AND
		"dogs | dog":        2,
		"@c:{red}":          1, // case-insensitive; x:3 is not under d:
		"@c:{blue | green}": 2,
		"@n:[5 50]":         2,
		"@n:[-inf +inf]":    2, // d:4 failed to index its number
		`@t:"running dogs"`: 1,
		`@t:"dogs running"`: 0, // order matters
		"dog":               2, // stemmed: "dog" finds d:1's "dogs"
		"@t:dog @c:{green}": 1,
		"elsewhere":         0,
	} {
		got, err := run(c, "FT.SEARCH", "i", q, "NOCONTENT").ToArray()
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if n, _ := got[0].AsInt64(); n != want {
			t.Errorf("resp2=%v %q: total %d, want %d", resp2, q, n, want)
		}
	}
	// "it" is a stop word on i, an ordinary word on exact.
	for idx, want := range map[string]int64{"i": 0, "exact": 1} {
		got, err := run(c, "FT.SEARCH", idx, `@t:"it 500"`, "NOCONTENT").ToArray()
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := got[0].AsInt64(); n != want {
			t.Errorf("%s: phrase \"it 500\" total %d, want %d", idx, n, want)
		}
	}
	kv, err := run(c, "FT.INFO", "i").ToArray()
	if err != nil {
		t.Fatal(err)
	}
	info := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].ToString()
		v, err := kv[i+1].ToString()
		if err != nil {
			n, _ := kv[i+1].AsInt64()
			v = string(rune('0' + n))
		}
		info[k] = v
	}
	// d:4 is a document though its only field was refused.
	if info["num_docs"] != "3" || info["hash_indexing_failures"] != "1" || info["mutation_queue_size"] != "0" {
		t.Errorf("FT.INFO i: num_docs %s, failures %s, queue %s", info["num_docs"], info["hash_indexing_failures"], info["mutation_queue_size"])
	}
	if n, _ := run(c, "DEL", "d:1", "d:9").AsInt64(); n != 1 {
		t.Errorf("DEL = %d", n)
	}
	waitInfo(t, c, awaitIndexed, "i", "exact")
	if got, _ := run(c, "FT.SEARCH", "i", "dog", "NOCONTENT").ToArray(); len(got) != 2 {
		t.Errorf("after DEL: %d items", len(got))
	}
}

func TestKNNOrder(t *testing.T) {
	_, c := client(t, valkeyfake.Options{})
	knnOrder(t, c)
	// The fake answers keys only, the driver's form, and says so.
	err := run(c, "FT.SEARCH", "v", "*=>[KNN 2 @e $q]", "PARAMS", "2", "q", vec(1, 0.1), "DIALECT", "2").Error()
	if err == nil || !strings.Contains(err.Error(), "NOCONTENT") {
		t.Fatalf("a search for content: %v", err)
	}
}

// knnOrder: each DISTANCE_METRIC ranks the same four vectors its own way —
// by cosine b (along the query), a; by L2 a (nearest in space), d; by
// inner product c (longest along the query), b — and FT.INFO reports the
// metric by the module's name for it, whatever the case it was given in.
func knnOrder(t *testing.T, c vk.Client) {
	for _, m := range []struct{ index, metric, info string }{{"v", "COSINE", "COSINE"}, {"v-l2", "L2", "L2"}, {"v-ip", "ip", "IP"}} {
		run(c, "FT.CREATE", m.index, "SCHEMA", "e", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "2", "DISTANCE_METRIC", m.metric)
		info, err := run(c, "FT.INFO", m.index).ToAny()
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := pairValue(info, "distance_metric"); !ok || got != m.info {
			t.Errorf("FT.INFO %s: distance_metric %v (found: %v), want %s", m.index, got, ok, m.info)
		}
	}
	run(c, "HSET", "a", "e", vec(0.9, 0.1))
	run(c, "HSET", "b", "e", vec(5, 0))
	run(c, "HSET", "c", "e", vec(8, 6))
	run(c, "HSET", "d", "e", vec(0, 1))
	// Three indexes hold every key (awaitIndexed).
	waitInfo(t, c, awaitIndexed, "v", "v-l2", "v-ip")
	for _, m := range []struct {
		index string
		want  []string
	}{{"v", []string{"b", "a"}}, {"v-l2", []string{"a", "d"}}, {"v-ip", []string{"c", "b"}}} {
		got, err := run(c, "FT.SEARCH", m.index, "*=>[KNN 2 @e $q]", "PARAMS", "2", "q", vec(1, 0), "NOCONTENT", "DIALECT", "2").ToArray()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("%s: reply has %d items, want 3", m.index, len(got))
		}
		total, _ := got[0].AsInt64()
		first, _ := got[1].ToString()
		second, _ := got[2].ToString()
		if total != 2 || first != m.want[0] || second != m.want[1] {
			t.Errorf("KNN on %s: total %d, %s, %s; want 2, %s, %s", m.index, total, first, second, m.want[0], m.want[1])
		}
	}
}

// pairValue is the value after the first name in a reply of nested lists
// of name/value pairs (FT.INFO's shape), searched depth first.
func pairValue(v any, name string) (any, bool) {
	items, ok := v.([]any)
	if !ok {
		return nil, false
	}
	for i, x := range items {
		if x == name && i+1 < len(items) {
			return items[i+1], true
		}
		if found, ok := pairValue(x, name); ok {
			return found, true
		}
	}
	return nil, false
}

func TestAuth(t *testing.T) {
	s, c := client(t, valkeyfake.Options{Password: "s3cret"})
	if err := run(c, "PING").Error(); err != nil {
		t.Fatalf("authenticated client: %v", err)
	}
	_, err := vk.NewClient(vk.ClientOption{InitAddress: []string{s.Addr()}, Password: "wrong", DisableCache: true, ForceSingleClient: true})
	if err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
		t.Fatalf("wrong password: %v", err)
	}
	_, err = vk.NewClient(vk.ClientOption{InitAddress: []string{s.Addr()}, DisableCache: true, ForceSingleClient: true})
	if err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Fatalf("no password: %v", err)
	}
}

// HGETALL, the driver's get: every field of the hash; nothing for a
// missing key; exactly one key argument.
func TestHgetall(t *testing.T) {
	_, c := client(t, valkeyfake.Options{})
	hgetall(t, c, false)
}

func hgetall(t *testing.T, c vk.Client, resp2 bool) {
	if err := run(c, "HSET", "p:1", "t", "red ball", "v", vec(1, -2)).Error(); err != nil {
		t.Fatal(err)
	}
	m, err := run(c, "HGETALL", "p:1").AsStrMap()
	if err != nil || len(m) != 2 || m["t"] != "red ball" || m["v"] != vec(1, -2) {
		t.Fatalf("RESP2 %v: HGETALL p:1 = %q, %v", resp2, m, err)
	}
	if m, err := run(c, "HGETALL", "p:2").AsStrMap(); err != nil || len(m) != 0 {
		t.Fatalf("RESP2 %v: HGETALL of a missing key = %q, %v; want empty", resp2, m, err)
	}
	if err := run(c, "HGETALL", "p:1", "p:2").Error(); err == nil || !strings.Contains(err.Error(), "wrong number of arguments for 'hgetall'") {
		t.Fatalf("RESP2 %v: HGETALL of two keys: %v", resp2, err)
	}
	if err := run(c, "DEL", "p:1").Error(); err != nil {
		t.Fatal(err)
	}
	if m, err := run(c, "HGETALL", "p:1").AsStrMap(); err != nil || len(m) != 0 {
		t.Fatalf("RESP2 %v: HGETALL after DEL = %q, %v", resp2, m, err)
	}
}

// Faults come from the shared kit: a held command is answered once the
// faults are cleared, a dropped one closes the connection, and a fault of
// Times 1 is used once.
func TestFaults(t *testing.T) {
	s, c := client(t, valkeyfake.Options{})
	s.Inject(valkeyfake.Fault{Command: "PING", Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.Do(ctx, c.B().Ping().Build()).Error(); err == nil {
		t.Fatal("a held PING was answered")
	}
	s.ClearFaults()
	c2, err := vk.NewClient(vk.ClientOption{InitAddress: []string{s.Addr()}, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if err := run(c2, "PING").Error(); err != nil {
		t.Fatalf("PING after ClearFaults: %v", err)
	}
	s.Inject(valkeyfake.Fault{Command: "PING", Raw: "+raw\r\n", Times: 1})
	if got, err := run(c, "PING").ToString(); err != nil || got != "raw" {
		t.Fatalf("raw fault: %q %v", got, err)
	}
	if got, err := run(c, "PING").ToString(); err != nil || got != "PONG" {
		t.Fatalf("after a fault of one time: %q %v", got, err)
	}
	s.Inject(valkeyfake.Fault{Command: "PING", Drop: true, Times: 1})
	if err := run(c, "PING").Error(); err == nil {
		t.Fatal("a dropped PING was answered")
	}
}

// An index made over keys already written backfills them on the server's
// cron: FT.CREATE answers at once, FT.INFO says backfill_in_progress until
// the scan has passed every key, then ready with every key a document, and
// the keys' fields are found.
func backfill(t *testing.T, c vk.Client) {
	for i := range 300 {
		if err := run(c, "HSET", fmt.Sprintf("b:%d", i), "t", "backfilled words", "n", fmt.Sprint(i)).Error(); err != nil {
			t.Fatal(err)
		}
	}
	if err := run(c, "FT.CREATE", "late", "PREFIX", "1", "b:", "SCHEMA", "t", "TEXT", "n", "NUMERIC").Error(); err != nil {
		t.Fatal(err)
	}
	info := func() map[string]string {
		kv, err := run(c, "FT.INFO", "late").ToArray()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			k, _ := kv[i].ToString()
			if v, err := kv[i+1].ToString(); err == nil {
				out[k] = v
			} else if n, err := kv[i+1].AsInt64(); err == nil {
				out[k] = fmt.Sprint(n)
			}
		}
		return out
	}
	if first := info(); first["state"] != "backfill_in_progress" || first["backfill_in_progress"] != "1" {
		t.Fatalf("FT.INFO at once after FT.CREATE: state %q, backfill_in_progress %q; want the backfill in progress", first["state"], first["backfill_in_progress"])
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		i := info()
		if i["state"] == "ready" {
			if i["backfill_in_progress"] != "0" || i["backfill_complete_percent"] != "1.000000" || i["num_docs"] != "300" {
				t.Fatalf("backfill done: %v", i)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("backfill not done after 30 s: %v", i)
		}
		time.Sleep(20 * time.Millisecond)
	}
	got, err := run(c, "FT.SEARCH", "late", "backfilled", "NOCONTENT", "LIMIT", "0", "0").ToArray()
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := got[0].AsInt64(); n != 300 {
		t.Fatalf("after the backfill, a word of every key finds %d keys, want 300", n)
	}
}

func TestBackfill(t *testing.T) {
	_, c := client(t, valkeyfake.Options{})
	backfill(t, c)
}
