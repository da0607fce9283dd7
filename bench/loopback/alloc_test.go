package loopback

import (
	"bufio"
	"bytes"
	"io"
	"testing"
	"time"
)

// Reading and routing a search allocates nothing: the target's cost per
// request stays a read and a write.
func TestSearchAllocatesNothing(t *testing.T) {
	raw := []byte("POST /indexes/searchbench/search HTTP/1.1\r\nHost: 127.0.0.1:7701\r\nUser-Agent: Meilisearch Go (v0.37.0)\r\n" +
		"Content-Length: 15\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\nAccept-Encoding: gzip\r\n\r\n{\"q\":\"a b c d\"}")
	s := &Server{Key: "k"}
	src := bytes.NewReader(raw)
	r := bufio.NewReaderSize(src, maxHeader)
	scratch := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(1000, func() {
		src.Reset(raw)
		r.Reset(src)
		req, head, err := readHead(r)
		if err != nil {
			t.Fatal(err)
		}
		status, body, search := s.route(&req, &scratch)
		if status != statusOK || !search || len(body) == 0 {
			t.Fatalf("%q %v", status, search)
		}
		if _, err := r.Discard(head + req.length); err != nil {
			t.Fatal(err)
		}
		if _, err := r.ReadByte(); err != io.EOF {
			t.Fatalf("the body was not all read: %v", err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations a search", allocs)
	}
}

// A delayed search allocates nothing either: the wait reuses the serving
// goroutine's timer.
func TestDelayedSearchAllocatesNothing(t *testing.T) {
	s := &Server{Delay: time.Microsecond}
	s.hold() // the goroutine's timer is made once
	if allocs := testing.AllocsPerRun(200, s.hold); allocs != 0 {
		t.Errorf("%.1f allocations a delayed search", allocs)
	}
}
