package elasticsearch

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"github.com/elastic/go-elasticsearch/v8/esapi"
)

// client is the esapi.Transport every request goes through: the official
// client's low-level layer, elastictransport, with what the root package
// github.com/elastic/go-elasticsearch/v8 adds on top of it that this driver
// relies on, the product check. The root package is not imported: it
// also imports the typed API (typedapi), about 850 packages of generated
// code this driver never calls, which were most of the benchmark binary's
// cold build.
type client struct {
	tp *elastictransport.Client
	// checked: a 2xx response carried the product header, so no later
	// response is checked again.
	checked atomic.Bool
}

var _ esapi.Transport = (*client)(nil)

// newClient configures the transport as the root package's NewClient did
// for this driver's Config (go-elasticsearch v8.19.7 elasticsearch.go,
// newTransport): one URL, the User-Agent it sends, an API key or basic
// auth, retries off, and the driver's own http.Transport.
func newClient(u *url.URL, user, password, key string, tr http.RoundTripper) (*client, error) {
	opts := []elastictransport.Option{
		elastictransport.WithURLs(u),
		elastictransport.WithUserAgent(userAgent()),
		elastictransport.WithDisableRetry(),
		elastictransport.WithTransport(tr),
	}
	switch {
	case key != "":
		opts = append(opts, elastictransport.WithAPIKey(key))
	case user != "" || password != "":
		opts = append(opts, elastictransport.WithBasicAuth(user, password))
	}
	tp, err := elastictransport.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	return &client{tp: tp}, nil
}

// userAgent is the root package's User-Agent, "go-elasticsearch/8.19.7
// (linux amd64; Go 1.26.0)" (go-elasticsearch v8.19.7 elasticsearch.go,
// initUserAgent), so the server's logs name the same client as before.
func userAgent() string {
	return "go-elasticsearch/" + esapi.Version + " (" + runtime.GOOS + " " + runtime.GOARCH +
		"; Go " + strings.TrimPrefix(runtime.Version(), "go") + ")"
}

// Perform sends the request and applies the product check as the root
// package's BaseClient.Perform and genuineCheckHeader do (go-elasticsearch
// v8.19.7 elasticsearch.go): until a 2xx response has carried
// X-Elastic-Product: Elasticsearch, a 2xx response without it is refused
// (its body closed) with ErrNotElasticsearch; error statuses are not
// checked, as there. Once one passed, no response is checked again.
//
// The root package's other additions are left out on purpose: the
// X-Elastic-Client-Meta header is Elastic's client telemetry (the server
// only counts it), and its compatibility mode, switched on by the
// environment variable ELASTIC_CLIENT_APIVERSIONING, would have changed the
// Content-Type and Accept of every request from outside the run's
// configuration.
func (c *client) Perform(req *http.Request) (*http.Response, error) {
	res, err := c.tp.Perform(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode/100 == 2 && !c.checked.Load() {
		if res.Header.Get("X-Elastic-Product") != "Elasticsearch" {
			_ = res.Body.Close()
			return nil, ErrNotElasticsearch
		}
		c.checked.Store(true)
	}
	return res, nil
}

// Close closes the transport; a second Close is not an error.
func (c *client) Close() error {
	err := c.tp.Close(context.Background())
	if errors.Is(err, elastictransport.ErrAlreadyClosed) {
		return nil
	}
	return err
}
