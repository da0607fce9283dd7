package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/live"
)

// liveUsage is --live's help.
const liveUsage = "serve a live view of the run at this address (host:port, e.g. 127.0.0.1:8089) while it goes on; off by default"

// listenLive binds --live's address before anything starts, so that a
// taken port is bad input rather than a run without its view; nil when
// the flag is not given.
func listenLive(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, usageError{fmt.Errorf("live: %w", err)}
	}
	return ln, nil
}

// liveFlush bounds how long the server waits, once the run is done, for
// the pages to read the last events: a page that does not read is left.
const liveFlush = 5 * time.Second

// serveLive serves the live view on ln while the run goes on; log says its
// URL. The returned Observer goes to the run; stop, called when the run is
// done, sends the pages the end and shuts the server down once they have
// it (or liveFlush has passed).
func serveLive(ln net.Listener, log *logger) (runner.Observer, func()) {
	lv := live.New()
	srv := &http.Server{Handler: lv, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.printf("live view: %v", err)
		}
	}()
	log.printf("live view at http://%s/", ln.Addr())
	return lv, func() {
		lv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), liveFlush)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			srv.Close() // the pages still open are cut off
		}
		<-done
	}
}
