package valkeyfake

import (
	"bufio"
	"bytes"
	"testing"
)

// A malformed request or query is an error reply, never a crash of the
// fake's connection handler.
func FuzzReadCommand(f *testing.F) {
	f.Add([]byte("*2\r\n$4\r\nPING\r\n$1\r\nx\r\n"))
	f.Add([]byte("*1\r\n$-5\r\n"))
	f.Add([]byte("*99999999999\r\n"))
	f.Add([]byte("PING extra\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReader(bytes.NewReader(b))
		for range 8 {
			if _, err := readCommand(r); err != nil {
				return
			}
		}
	})
}

func FuzzParseQuery(f *testing.F) {
	ix, err := parseCreate([]string{"i", "SCHEMA", "t", "TEXT", "c", "TAG", "n", "NUMERIC", "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "2", "DISTANCE_METRIC", "COSINE"})
	if err != nil {
		f.Fatal(err)
	}
	d, _, _ := ix.ingest(map[string]string{"t": "the quick brown fox", "c": "a,b", "n": "3"}, nil)
	for _, q := range []string{"quick | fox", `@c:{a\|b} -@n:[(1 inf]`, `@t:"brown fox" qu*`, "((x)", "@n:[1", "a | | b", `\`, "*=>[KNN 2 @v $q]"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if p, err := parseFilter(ix, q); err == nil {
			p.eval(d)
		}
		parseKNN(ix, q)
		parseCreate([]string{"x", "SCHEMA", "f", q})
	})
}
