package httpwire

import (
	"net"
	"net/http"
	"time"
)

// Transport is the transport of every HTTP driver: up to conns
// keep-alive connections to the one host (so each virtual user can hold
// its own, as the published study's did, instead of queueing for a few),
// and no proxy in the measured path. net/http itself retries a request
// once when a reused keep-alive connection turns out closed before anything
// was written on it (an idempotent request, or one whose body it can
// replay); that retry is inside the timed call, so its cost is counted, and
// the drivers' client libraries add no retries of their own. It asks for
// gzipped responses, as the study's Locust users (python-requests) did;
// each engine's own default decides whether it compresses.
func Transport(conns int) *http.Transport {
	return &http.Transport{
		Proxy: nil,
		DialContext: (&net.Dialer{
			Timeout:   10 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		MaxIdleConns:          conns,
		MaxIdleConnsPerHost:   conns,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}
