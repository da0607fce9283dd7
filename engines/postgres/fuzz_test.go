package postgres_test

import (
	"context"
	"encoding/hex"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/enginetest"
)

// session is a recorded server side of a whole driver session (see
// testdata/session.hex), the seed the fuzzer mutates.
func session(tb testing.TB) []byte {
	raw, err := os.ReadFile(filepath.Join("testdata", "session.hex"))
	if err != nil {
		tb.Fatal(err)
	}
	var h strings.Builder
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "#") {
			h.WriteString(strings.TrimSpace(line))
		}
	}
	b, err := hex.DecodeString(h.String())
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// msg is one backend message: a type byte and a length-prefixed body.
func msg(typ byte, body string) string {
	n := len(body) + 4
	return string([]byte{typ, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}) + body
}

// replayServer listens on a Unix socket and answers every connection with
// the bytes set last, then closes its side, so a call waiting for more fails
// at once. It returns the driver's URL for it.
func replayServer(tb testing.TB) (url string, set func([]byte)) {
	dir := tb.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, ".s.PGSQL.5432"))
	if err != nil {
		tb.Fatal(err)
	}
	var mu sync.Mutex
	var reply []byte
	var conns sync.WaitGroup
	tb.Cleanup(func() {
		ln.Close()
		conns.Wait()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			b := reply
			mu.Unlock()
			conns.Add(1)
			go func() {
				defer conns.Done()
				defer c.Close()
				c.Write(b)
				c.(*net.UnixConn).CloseWrite()
				io.Copy(io.Discard, c) // until the driver closes
			}()
		}
	}()
	return "postgres://u@/db?host=" + dir + "&port=5432&sslmode=disable", func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		reply = b
	}
}

// The recorded session replays: every call succeeds, so the fuzzer's seed
// reaches each reply's parsing.
func TestRecordedSessionReplays(t *testing.T) {
	url, set := replayServer(t)
	set(session(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e, err := engines.Open(ctx, "postgres", engines.Config{URL: url, Options: map[string]string{"pool": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	d := engines.Document{ID: "1", Fields: []engines.Field{{Name: "name", Text: "x"}, {Name: "content", Text: "y"}}}
	if v, err := e.(engines.Versioner).Version(ctx); err != nil || !strings.HasPrefix(v, "PostgreSQL 15") {
		t.Fatalf("version %q, %v", v, err)
	}
	if err := e.Create(ctx, enginetest.Schema("fz")); err != nil {
		t.Fatal(err)
	}
	if err := e.Upsert(ctx, d); err != nil {
		t.Fatal(err)
	}
	if h, err := e.Search(ctx, engines.Query{Text: "x", K: 10}); err != nil || len(h.IDs) != 1 || h.IDs[0] != "1" {
		t.Fatalf("search %v, %v", h, err)
	}
	if err := e.Delete(ctx, "1"); err != nil {
		t.Fatal(err)
	}
	if n, err := e.(engines.Counter).Count(ctx); err != nil || n != 0 {
		t.Fatalf("count %d, %v", n, err)
	}
	if err := e.(engines.BulkUpserter).UpsertBatch(ctx, []engines.Document{d, d}); err != nil {
		t.Fatal(err)
	}
}

// FuzzServerReplies: whatever bytes a PostgreSQL server sends — a session
// cut short, a message of the wrong type or length, an error with any
// SQLSTATE, a row of the wrong shape — every driver call returns a result
// or an error, never a panic.
func FuzzServerReplies(f *testing.F) {
	url, set := replayServer(f)
	ok := msg('R', "\x00\x00\x00\x00")
	ready := msg('Z', "I")
	f.Add(session(f))
	f.Add([]byte(ok + ready))
	f.Add([]byte(ok + ready + msg('E', "SFATAL\x00C53300\x00Msorry, too many clients already\x00\x00")))
	f.Add([]byte(ok + ready + msg('E', "SERROR\x00C57014\x00Mcanceling statement due to statement timeout\x00\x00") + ready))
	f.Add([]byte(ok + ready + msg('I', "") + ready + msg('T', "\x00\x01id\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x19\xff\xff\xff\xff\xff\xff\x00\x00") +
		msg('D', "\x00\x02\x00\x00\x00\x01a\xff\xff\xff\xff") + msg('C', "SELECT 1\x00") + ready))
	f.Add([]byte(msg('R', "\x00\x00\x00\x0a") + ready))
	f.Add([]byte(msg('E', "SFATAL\x00C28P01\x00Mpassword authentication failed\x00\x00")))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		set(b)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		e, err := engines.Open(ctx, "postgres", engines.Config{URL: url, Options: map[string]string{"pool": "1"}})
		if err != nil {
			return
		}
		defer e.Close()
		d := engines.Document{ID: "1", Fields: []engines.Field{{Name: "name", Text: "x"}, {Name: "content", Text: "y"}}}
		_, _ = e.(engines.Versioner).Version(ctx)
		_ = e.Create(ctx, enginetest.Schema("fz"))
		_ = e.Upsert(ctx, d)
		if h, err := e.Search(ctx, engines.Query{Text: "x", K: 10}); err == nil && len(h.IDs) > 10 {
			t.Fatalf("%d hits for k=10", len(h.IDs))
		}
		_ = e.Delete(ctx, "1")
		_, _ = e.(engines.Counter).Count(ctx)
		_ = e.(engines.BulkUpserter).UpsertBatch(ctx, []engines.Document{d, d})
		if got, err := e.(engines.Getter).Get(ctx, "1"); err == nil && (got.ID != "1" || len(got.Fields) != 2) {
			t.Fatalf("Get(1) = %+v: not document 1 with its two fields", got)
		}
	})
}
