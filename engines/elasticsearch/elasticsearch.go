// Package elasticsearch drives Elasticsearch 8.19 over its REST API through
// the official client's low-level layer: the request structs of
// github.com/elastic/go-elasticsearch/v8/esapi sent through
// github.com/elastic/elastic-transport-go/v8/elastictransport (client.go).
// The client's root package is not imported, as it compiles the typed API
// too (see client.go). Responses are parsed here, so that a malformed one
// is an error and the fuzz targets can reach every parser.
//
// # Index configuration
//
// Create deletes an index of the same name (a missing one is fine) and
// creates it with the published study's analysis: a custom analyzer
// "searchbench_english" = standard tokenizer, lowercase, stop (the _english_
// list) and stemmer (language english, Lucene's Porter stemmer), set as the
// analyzer of every Text field. Tag fields map to keyword, Numeric fields to
// double; Vector fields are refused with engines.ErrUnsupported (a
// dense_vector could be stored, but this driver has no kNN search to use it,
// and storing 1,024 floats per document only to ignore them would distort
// the write cost). The mapping is "dynamic": "strict", so a document field
// the schema does not name is an error rather than a silently added field.
//
// Index settings: 1 shard, 0 replicas (a single node cannot place a replica;
// the index would stay yellow), and refresh_interval sent explicitly, "1s"
// unless option refresh_interval says otherwise. Sending it, even at the
// default, matters: an index without an explicit refresh_interval stops its
// periodic refreshes after 30 s without searches (search idle), which would
// change what "acknowledged" means during a write-only phase.
//
// # Search
//
// A search is multi_match, type most_fields (the scores of every text field
// are added), over the schema's Text fields, with the default OR operator,
// size = Query.K, _source false (only _id is read) and fuzziness "0": the
// study's "fuzziness 0", sent as published. Elasticsearch accepts 0, 1, 2,
// "AUTO" and "AUTO:low,high"; with "0" every query term is a fuzzy query of
// edit distance 0, which matches exactly the documents a plain term query
// matches (option fuzziness: "none" leaves the parameter out).
//
// track_total_hits is sent as 10000, Elasticsearch's own default, because
// the study did not change it, and it decides how much work a search does:
// true would count every match of a 5-word OR query (a third of the corpus),
// false would let Lucene skip non-competitive documents from the start, both
// different benchmarks. Hits.Total is the exact count when Elasticsearch
// says "eq" and -1 when it says "gte" (more than 10,000: the number is only a
// lower bound). Option track_total_hits chooses true, false or another bound.
// A search that reports shard failures or timed_out is an error: its hits
// would be a partial answer.
//
// Query.Field, Query.Vector and Query.Filters are refused with
// engines.ErrUnsupported: the mixed workload only sends text.
//
// # Write modes
//
// Elasticsearch is near-real-time: a write is searchable after the next
// refresh of the shard.
//
//   - "acknowledged" (the default, as the study ran it): writes go without a
//     refresh parameter (refresh=false), returning once the primary shard
//     has the write; a search sees it after the next periodic refresh.
//     Refresh (POST /{index}/_refresh) makes every acknowledged write
//     searchable.
//   - "searchable": writes send refresh=wait_for and return after the
//     refresh that makes them visible (up to refresh_interval later). Beyond
//     index.max_refresh_listeners (1000) waiting requests per shard,
//     Elasticsearch forces a refresh instead. refresh_interval "-1" is
//     refused in this mode: no periodic refresh would ever release a write.
//
// Upsert is PUT /{index}/_doc/{id} (index or replace). UpsertBatch is one
// POST /{index}/_bulk of "index" actions: it fails if the response reports
// errors or any item's status is not 2xx, naming the first failed id; when
// every failed item was rejected for load (429), the error wraps
// engines.ErrOverloaded. Delete is DELETE /{index}/_doc/{id}; a 404 whose
// body says result "not_found" wraps engines.ErrNotFound. Delete is
// real-time in Elasticsearch (it consults the version map, not the last
// refresh), so a missing ID is reported in both modes.
//
// Count is POST /{index}/_count: documents visible to search, that is, as of
// the last refresh. Version is GET / → version.number.
//
// # Get
//
// Get is GET /{index}/_doc/{id}. It is real-time (the realtime parameter's
// default, not sent), so it sees every acknowledged write and delete in
// both write modes, refreshed or not: for a document not yet refreshed,
// the shard refreshes its internal reader, which searches do not use
// (InternalEngine.REAL_TIME_GET_REFRESH_SOURCE, "realtime_get", in
// Elasticsearch's server/…/index/engine/InternalEngine.java), so a get may
// cost a refresh that a search does not see. It returns the schema's fields
// as _source holds them; a 404 whose body says found false wraps
// engines.ErrNotFound, and a 404 index_not_found_exception does not.
//
// # HTTP client
//
// Retries are disabled (elastictransport.WithDisableRetry): by default the
// transport retries up to 3 times on 502, 503 and 504 and on every network error
// (elastic-transport-go v8.9.0 elastictransport.go: defaultMaxRetries,
// defaultRetryOnStatus, RetryOnError nil means any error), which would hide
// overload from the benchmark and multiply the load it offers. The
// http.Transport keeps up to pool (default 2048) idle keep-alive
// connections to the server, enough for the 1,500 users of the largest
// published level (engines.HTTPTransport, shared by every HTTP driver).
// Request bodies are not gzipped (the client's default); responses may be,
// as Elasticsearch's http.compression defaults to true and the transport
// asks for gzip as the study's Locust clients (python-requests) did;
// proxies from the environment are ignored, so nothing but the engine sits
// in the measured path.
//
// The client's product check is kept (client.go does what the root
// package does): until a successful response has carried the header
// X-Elastic-Product: Elasticsearch, a successful response without it is
// refused. Open makes the first request (GET /), so a server that is not
// Elasticsearch 8 (or a proxy that drops the header) fails there with an
// error wrapping ErrNotElasticsearch.
//
// Errors: HTTP 429 (es_rejected_execution_exception, circuit_breaking_exception)
// and 503 wrap engines.ErrOverloaded, except a 429 cluster_block_exception
// (the disk flood-stage watermark made the index read-only: not load, a full
// disk). 408, 504 and client timeouts wrap engines.ErrTimeout. A 404
// index_not_found_exception is not engines.ErrNotFound: a missing index is a
// broken setup, not a missing document, and must not be ignored like one.
// Credentials: Username/Password go as HTTP basic auth, APIKey (the
// base64-encoded id:key Elasticsearch hands out) as "Authorization: APIKey";
// neither appears in an error. Config.URL is the server's base URL
// (default http://127.0.0.1:9200), without credentials or a path.
//
// # Options (Config.Options)
//
//   - refresh_interval: the index's refresh_interval, an Elasticsearch time
//     value ("1s", "500ms", "30s") or "-1" (no periodic refresh); default "1s".
//   - track_total_hits: "true", "false" or a count bound; default 10000.
//   - fuzziness: the multi_match fuzziness, "0" (default), "1", "2", "AUTO",
//     "AUTO:low,high", or "none" to leave it out.
//   - pool: idle connections kept to the server (default 2048).
package elasticsearch

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/engines"
)

func init() { engines.Register("elasticsearch", driver{}) }

type driver struct{}

func (driver) Describe() engines.Description {
	return engines.Description{
		Summary: "Elasticsearch 8.19 (go-elasticsearch/v8 esapi): standard tokenizer + lowercase + stop + english stemmer, " +
			"multi_match most_fields, fuzziness 0, 1 shard; near-real-time writes (acknowledged | searchable via refresh=wait_for)",
		Visibility: engines.Acknowledged,
		Getter:     true,
	}
}

// DefaultURL is where Elasticsearch listens unless told otherwise.
const DefaultURL = "http://127.0.0.1:9200"

// Defaults of the options.
const (
	DefaultPool            = 2048
	DefaultRefreshInterval = "1s"
	DefaultTrackTotalHits  = 10000
	DefaultFuzziness       = "0"
)

// ErrNotElasticsearch: the server's answer lacked the header
// X-Elastic-Product: Elasticsearch, so the client refused it.
var ErrNotElasticsearch = errors.New("the server did not identify itself as Elasticsearch (no X-Elastic-Product: Elasticsearch header on its response): " +
	"not Elasticsearch 8, or a proxy in between drops the header")

// optionNames are the valid Config.Options keys, for the error that rejects
// an unknown one.
var optionNames = []string{"fuzziness", "pool", "refresh_interval", "track_total_hits"}

type options struct {
	pool            int
	refreshInterval string
	trackTotalHits  any    // bool or int, sent as JSON
	fuzziness       string // "" = not sent
}

// timeValue is an Elasticsearch time value (TimeValue.parseTimeValue), or -1.
var timeValue = regexp.MustCompile(`^(-1|[0-9]+(nanos|micros|ms|s|m|h|d))$`)

// fuzzinessValue is what Elasticsearch's Fuzziness parser accepts.
var fuzzinessValue = regexp.MustCompile(`^([012]|AUTO|AUTO:[0-9]+,[0-9]+)$`)

func parseOptions(raw map[string]string) (options, error) {
	o := options{pool: DefaultPool, refreshInterval: DefaultRefreshInterval, trackTotalHits: DefaultTrackTotalHits, fuzziness: DefaultFuzziness}
	for k, v := range raw {
		var err error
		switch k {
		case "pool":
			o.pool, err = strconv.Atoi(v)
			if err == nil && o.pool < 1 {
				err = errors.New("must be at least 1")
			}
		case "refresh_interval":
			o.refreshInterval = v
			if !timeValue.MatchString(v) {
				err = errors.New(`must be an Elasticsearch time value such as "1s" or "500ms", or "-1"`)
			}
		case "track_total_hits":
			o.trackTotalHits, err = parseTrackTotalHits(v)
		case "fuzziness":
			switch {
			case v == "none":
				o.fuzziness = ""
			case fuzzinessValue.MatchString(v):
				o.fuzziness = v
			default:
				err = errors.New(`must be 0, 1, 2, AUTO, AUTO:low,high or none`)
			}
		default:
			return o, fmt.Errorf("elasticsearch: unknown option %q (valid: %s)", k, strings.Join(optionNames, ", "))
		}
		if err != nil {
			return o, fmt.Errorf("elasticsearch: option %s=%q: %v", k, v, err)
		}
	}
	return o, nil
}

func parseTrackTotalHits(v string) (any, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return nil, errors.New("must be true, false or a count ≥ 0")
	}
	return n, nil
}

// CheckConfig checks the write mode and the options before anything starts.
func (driver) CheckConfig(cfg engines.Config) error {
	_, _, err := check(cfg)
	return err
}

// check returns the refresh parameter of writes and the options.
func check(cfg engines.Config) (string, options, error) {
	refresh, err := refreshParam(cfg.WriteMode)
	if err != nil {
		return "", options{}, err
	}
	o, err := parseOptions(cfg.Options)
	if err != nil {
		return "", o, err
	}
	if refresh != "" && o.refreshInterval == "-1" {
		return "", o, errors.New(`elasticsearch: write mode searchable waits for a refresh, and refresh_interval "-1" never makes one`)
	}
	return refresh, o, nil
}

func (driver) Open(ctx context.Context, cfg engines.Config) (engines.Engine, error) {
	refresh, o, err := check(cfg)
	if err != nil {
		return nil, err
	}
	u, err := checkURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	endpoint := u.String()
	user, password, key := cfg.Username, cfg.Password.Reveal(), cfg.APIKey.Reveal()
	switch {
	case key != "" && (user != "" || password != ""):
		return nil, errors.New("elasticsearch: give an API key or a username and password, not both")
	case (user == "") != (password == ""):
		// The transport sends basic auth only when both are set: one alone
		// would be dropped without a word.
		return nil, errors.New("elasticsearch: basic auth needs both a username and a password")
	}
	tr := engines.HTTPTransport(o.pool)
	client, err := newClient(u, user, password, key, tr)
	if err != nil {
		return nil, fmt.Errorf("elasticsearch: client: %w", err)
	}
	e := &Engine{
		client:    client,
		transport: tr,
		refresh:   refresh,
		opts:      o,
		secrets:   secrets(user, password, key),
		endpoint:  endpoint,
	}
	// GET / is the client's first request, so the product check and the
	// credentials are both checked here, not mid-run.
	if _, err := e.Version(ctx); err != nil {
		_ = e.Close()
		return nil, fmt.Errorf("elasticsearch: connect to %s: %w", endpoint, err)
	}
	return e, nil
}

// refreshParam is the refresh parameter every write sends in a write mode.
func refreshParam(mode engines.Visibility) (string, error) {
	switch mode {
	case "", engines.Acknowledged:
		return "", nil // refresh=false, the server's default
	case engines.Searchable:
		return "wait_for", nil
	}
	return "", fmt.Errorf("elasticsearch: write mode %q is not offered (acknowledged or searchable)", mode)
}

// checkURL returns the server's base URL. Credentials in the URL are
// refused: the client would take them over Config's, and an error that
// quotes the URL would show them. So is a path: the transport prepends it
// to req.URL.Path and leaves RawPath as it was, so net/http re-escapes the
// joined path and an escaped "/" in a document ID becomes a path separator
// (elastic-transport-go v8.9.0, setReqURL).
func checkURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = DefaultURL
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, errors.New("elasticsearch: the URL must look like http://host:9200")
	case u.User != nil:
		return nil, errors.New("elasticsearch: the URL carries credentials; pass them as username and password instead")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, errors.New("elasticsearch: the URL must not have a query or fragment")
	case strings.Trim(u.Path, "/") != "":
		return nil, errors.New("elasticsearch: the URL must not have a path (http://host:9200): the client would split document IDs that contain a slash")
	}
	u.Path, u.RawPath = "", ""
	return u, nil
}

// secrets are the strings an error message must not show: the password
// and the key, and the basic-auth header's encoding of the password, which
// is as good as the password to whoever reads it.
func secrets(user, password, key string) []string {
	var out []string
	if password != "" {
		out = append(out, password, base64.StdEncoding.EncodeToString([]byte(user+":"+password)))
	}
	if key != "" {
		out = append(out, key)
	}
	return out
}
