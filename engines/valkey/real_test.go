package valkey_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/valkey"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
)

// The driver's write path against a real Valkey (Debian's valkey-server,
// without the search module), with matching_indexes=0: hash writes,
// replacement, deletes, batches and connection handling are the server's
// own, not the fake's.
func TestRealServerWritePath(t *testing.T) {
	addr := realServer(t)
	ctx := context.Background()
	e := open(t, engines.Config{URL: "redis://" + addr, Options: map[string]string{"matching_indexes": "0", "prefix": "prod:"}})
	if err := e.Create(ctx, productSchema("products")); err != nil {
		t.Fatalf("Create without an index on a server without the module: %v", err)
	}
	c := rawClient(t, addr, "")
	p := products[0]
	if err := e.Upsert(ctx, p.doc()); err != nil {
		t.Fatal(err)
	}
	h, err := do(t, c, "HGETALL", "prod:500").AsStrMap()
	if err != nil {
		t.Fatal(err)
	}
	if h["category"] != "electronics" || h["price"] != "999.5" || h["sku"] != "IT-500" || len(h["embedding"]) != 4*dim || len(h) != 6 {
		t.Fatalf("HGETALL prod:500 = %q", h)
	}
	if got := vkToVector32(h["embedding"]); got[0] != 1 || got[1] != 0 {
		t.Fatalf("embedding decodes to %v", got)
	}
	// An update replaces every field.
	p.title, p.price = "Loud laptop", 5
	if err := e.Upsert(ctx, p.doc()); err != nil {
		t.Fatal(err)
	}
	h, _ = do(t, c, "HGETALL", "prod:500").AsStrMap()
	if h["title"] != "Loud laptop" || h["price"] != "5" {
		t.Fatalf("after update: %q", h)
	}
	// A document missing a numeric field is refused, not half-written.
	bad := p.doc()
	bad.Fields = bad.Fields[:1]
	if err := e.Upsert(ctx, bad); err == nil {
		t.Fatal("a document without price was written")
	}
	if err := e.Delete(ctx, "500"); err != nil {
		t.Fatal(err)
	}
	if err := e.Delete(ctx, "500"); !errors.Is(err, engines.ErrNotFound) {
		t.Fatalf("second Delete: %v, want ErrNotFound", err)
	}
	// Batches: pipelined (no index) in groups under 16 KiB.
	docs := make([]engines.Document, 3000)
	for i := range docs {
		q := products[i%len(products)]
		q.id = fmt.Sprint(i)
		docs[i] = q.doc()
	}
	if err := e.(engines.BulkUpserter).UpsertBatch(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if n, err := e.(engines.Counter).Count(ctx); err != nil || n != 3000 {
		t.Fatalf("Count = %d, %v", n, err)
	}
	if n, _ := do(t, c, "DBSIZE").AsInt64(); n != 3000 {
		t.Fatalf("DBSIZE = %d", n)
	}
	// Create again starts from nothing, and leaves other keys alone.
	do(t, c, "SET", "unrelated", "1")
	if err := e.Create(ctx, productSchema("products")); err != nil {
		t.Fatal(err)
	}
	if n, _ := do(t, c, "DBSIZE").AsInt64(); n != 1 {
		t.Fatalf("after re-Create DBSIZE = %d, want 1 (the unrelated key)", n)
	}
	v, err := e.(engines.Versioner).Version(ctx)
	if err != nil || !strings.HasPrefix(v, "Valkey 8.") || !strings.Contains(v, "no search module") {
		t.Fatalf("Version = %q, %v", v, err)
	}
	// Stats: no index, no search section; nothing to report, no error.
	st, err := e.(engines.StatsReporter).Stats(ctx)
	if err != nil || len(st) != 0 {
		t.Fatalf("Stats = %v, %v", st, err)
	}
	// Asking for an index on a server without the module fails clearly.
	e2 := open(t, engines.Config{URL: "redis://" + addr})
	if err := e2.Create(ctx, productSchema("products")); err == nil || !strings.Contains(strings.ToLower(err.Error()), "unknown command") {
		t.Fatalf("Create with an index on a server without the module: %v", err)
	}
}

// INFO as a real Valkey 8.0 writes it parses; the fake's INFO parses the
// same way and carries the search fields the real one lacks.
func TestInfoParsersOnRealAndFake(t *testing.T) {
	addr := realServer(t)
	c := rawClient(t, addr, "")
	for _, section := range []string{"", "server", "modules", "search", "everything"} {
		args := []string{"INFO"}
		if section != "" {
			args = append(args, section)
		}
		text, err := do(t, c, args...).ToString()
		if err != nil {
			t.Fatal(err)
		}
		m, err := valkey.ParseInfo(text)
		if err != nil {
			t.Fatalf("INFO %s from valkey-server: %v", section, err)
		}
		if section == "server" || section == "everything" || section == "" {
			if v, err := valkey.ServerVersion(m); err != nil || !strings.HasPrefix(v, "8.") {
				t.Fatalf("INFO %s: version %q, %v", section, v, err)
			}
		}
		if _, ok, err := valkey.SearchModuleVersion(text); ok || err != nil {
			t.Fatalf("INFO %s: a search module found on a server without one (%v)", section, err)
		}
		if st, err := valkey.SearchStats(m); err != nil || len(st) != 0 {
			t.Fatalf("INFO %s: search stats %v, %v", section, st, err)
		}
	}

	s := startFake(t, valkeyfake.Options{})
	fc := rawClient(t, s.Addr(), "")
	do(t, fc, "CONFIG", "SET", "search.info-developer-visible", "yes")
	text, err := do(t, fc, "INFO", "everything").ToString()
	if err != nil {
		t.Fatal(err)
	}
	m, err := valkey.ParseInfo(text)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, err := valkey.SearchModuleVersion(text); !ok || err != nil || v != valkeyfake.SearchVersion {
		t.Fatalf("fake search module version %q %v %v", v, ok, err)
	}
	st, err := valkey.SearchStats(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"queue_depth", "ingest_hash_keys", "ingest_field_vector", "ingest_field_text", "ingest_field_tag", "ingest_field_numeric", "used_write_cpu"} {
		if _, ok := st[k]; !ok {
			t.Errorf("fake INFO lacks %s", k)
		}
	}
}

func TestPasswordNeverInErrors(t *testing.T) {
	const secret = "hunter2-secret"
	addr := realServer(t, "--requirepass", secret)
	ctx := context.Background()
	// The right password works, from Config.Password or the URL.
	e := open(t, engines.Config{URL: "redis://" + addr, Password: secret, Options: map[string]string{"matching_indexes": "0"}})
	if err := e.Create(ctx, productSchema("p")); err != nil {
		t.Fatal(err)
	}
	open(t, engines.Config{URL: "redis://:" + secret + "@" + addr, Options: map[string]string{"matching_indexes": "0"}})
	for name, cfg := range map[string]engines.Config{
		"wrong password": {URL: "redis://" + addr, Password: "not-" + secret},
		"no password":    {URL: "redis://" + addr},
		"wrong user":     {URL: "redis://" + addr, Username: "nobody", Password: secret},
		"unreachable":    {URL: "redis://:" + secret + "@127.0.0.1:1"},
		"unparsable":     {URL: "redis://:" + secret + "@127.0.0.1:notaport"},
		"bad scheme":     {URL: "http://:" + secret + "@" + addr},
	} {
		_, err := engines.Open(ctx, "valkey", cfg)
		if err == nil {
			t.Errorf("%s: Open succeeded", name)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%s: error shows the password: %v", name, err)
		}
	}
	if _, err := engines.Open(ctx, "valkey", engines.Config{}); err == nil {
		t.Error("no URL accepted")
	}
}

// The fake's auth path works with the driver too (HELLO 3 AUTH).
func TestFakeAuth(t *testing.T) {
	s := startFake(t, valkeyfake.Options{Password: "pw"})
	e := open(t, engines.Config{URL: s.URL(), Password: "pw"})
	if err := e.Create(context.Background(), productSchema("p")); err != nil {
		t.Fatal(err)
	}
	if _, err := engines.Open(context.Background(), "valkey", engines.Config{URL: s.URL(), Password: "nope"}); err == nil || strings.Contains(err.Error(), "nope") {
		t.Fatalf("wrong password: %v", err)
	}
}
