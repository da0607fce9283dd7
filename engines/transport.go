package engines

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// ServerURL parses an HTTP engine's address: raw, or def (the engine's
// usual local address) when raw is empty. The error names the driver and
// the form an address takes, and never quotes raw, which may hold a
// password.
func ServerURL(driver, raw, def string) (*url.URL, error) {
	if raw == "" {
		raw = def
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		port := "port"
		if d, err := url.Parse(def); err == nil && d.Port() != "" {
			port = d.Port()
		}
		return nil, fmt.Errorf("%s: the URL must look like http://host:%s", driver, port)
	}
	if err := CheckPort(u.Port()); err != nil {
		return nil, fmt.Errorf("%s: the URL's %w", driver, err)
	}
	return u, nil
}

// CheckPort refuses a port outside 1…65535 ("" is the scheme's default).
// net/url takes any digits as a port, so http://host:99999 parses, and
// fails only when the run dials it, after a container has started.
func CheckPort(port string) error {
	if port == "" {
		return nil
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %s is not 1 to 65535", port)
	}
	return nil
}

// HTTPTransport is the transport of every HTTP driver: up to conns
// keep-alive connections to the one host (so each virtual user can hold
// its own, as the published study's did, instead of queueing for a few),
// and no proxy in the measured path. net/http itself retries a request
// once when a reused keep-alive connection turns out closed before anything
// was written on it (an idempotent request, or one whose body it can
// replay); that retry is inside the timed call, so its cost is counted, and
// the drivers' client libraries add no retries of their own. It asks for
// gzipped responses, as the study's Locust users (python-requests) did;
// each engine's own default decides whether it compresses.
func HTTPTransport(conns int) *http.Transport {
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
