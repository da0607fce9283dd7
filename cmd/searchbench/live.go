package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

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

// liveView is the live view served while a run goes on.
type liveView struct {
	lv   *live.Server
	srv  *http.Server
	done chan struct{} // closed when Serve has returned
	once sync.Once
}

// serveLive serves the live view on ln while the run goes on; log says its
// URL. Its Server is the run's Observer.
func serveLive(ln net.Listener, log *logger) *liveView {
	v := &liveView{lv: live.New(), done: make(chan struct{})}
	v.srv = &http.Server{Handler: v.lv, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(v.done)
		if err := v.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.printf("live view: %v", err)
		}
	}()
	log.printf("live view at http://%s/", ln.Addr())
	return v
}

// end sends the pages the run's end at once and waits for none of them
// (nil: no view).
func (v *liveView) end() {
	if v != nil {
		v.lv.Close()
	}
}

// stop, called once the results are written, ends the view: the pages
// have at most live's close grace to take the end, then every connection
// is closed, a page that does not read and one that never completed a
// request alike; neither held up the results, and neither holds up the
// exit beyond that grace.
func (v *liveView) stop() {
	v.once.Do(func() {
		v.lv.Close()
		v.lv.Wait()
		v.srv.Close()
		<-v.done
	})
}
