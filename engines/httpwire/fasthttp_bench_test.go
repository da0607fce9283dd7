//go:build unix

package httpwire_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/searchbench/searchbench/engines/httpwire"
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// minimalServer answers every request with the same search answer in one
// write, allocating nothing: its share of each benchmark's CPU is the same
// whatever client sends.
func minimalServer(b *testing.B) *url.URL {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	reply := ok(`{"hits":[{"id":"1"},{"id":"2"},{"id":"3"}],"estimatedTotalHits":3}`)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
					if _, err := c.Write(reply); err != nil {
						return
					}
				}
			}()
		}
	}()
	return &url.URL{Scheme: "http", Host: ln.Addr().String()}
}

// BenchmarkTransports is one search-shaped POST (a 90-byte JSON body, a
// 90-byte answer read whole) by 8 goroutines against a minimal server in
// this process, through each of the drivers' transports: net/http (the
// drivers before, and every call but the hot ones), FastClient (Meilisearch,
// Typesense, Amgix Now) and RoundTripper (Elasticsearch, under
// elastic-transport-go). cpu-ns/op is the process's CPU time a call, the
// server's included — the figure that says what a call costs a core;
// ns/op is wall time and depends on what else the machine runs.
func BenchmarkTransports(b *testing.B) {
	body := []byte(`{"limit":10,"attributesToRetrieve":["id"],"q":"Lot foot lot will.","hybrid":null}`)
	run := func(b *testing.B, call func(ctx context.Context) error) {
		b.ReportAllocs()
		b.SetParallelism(4)
		start := cpuTime(b)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			for pb.Next() {
				if err := call(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.StopTimer()
		b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
	}
	b.Run("net-http", func(b *testing.B) {
		u := minimalServer(b)
		c := &http.Client{Transport: httpwire.Transport(64)}
		defer c.CloseIdleConnections()
		run(b, post(u.String()+"/indexes/x/search", body, c.Do))
	})
	b.Run("fastclient", func(b *testing.B) {
		c := httpwire.NewFastClient(minimalServer(b), 64, 0)
		defer c.Close()
		run(b, func(ctx context.Context) error {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			c.Prepare(req, http.MethodPost, "/indexes/x/search")
			req.Header.SetContentType("application/json")
			req.SetBodyRaw(body)
			return c.Do(ctx, req, resp)
		})
	})
	b.Run("roundtripper", func(b *testing.B) {
		u := minimalServer(b)
		t := httpwire.RoundTripper{Client: httpwire.NewFastClient(u, 64, 0)}
		defer t.CloseIdleConnections()
		run(b, post(u.String()+"/indexes/x/search", body, t.RoundTrip))
	})
}

// post is a search-shaped POST of body to target, built as net/http
// builds it and sent by send (a client's Do, a transport's RoundTrip),
// with its answer read to the end.
func post(target string, body []byte, send func(*http.Request) (*http.Response, error)) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := send(req)
		if err != nil {
			return err
		}
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		return err
	}
}
