package elasticsearch

import (
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/config"
)

// DefaultURL is where Elasticsearch listens unless told otherwise.
const DefaultURL = "http://127.0.0.1:9200"

// Defaults of the options.
const (
	DefaultPool            = 2048
	DefaultRefreshInterval = "1s"
	DefaultTrackTotalHits  = 10000
	DefaultFuzziness       = "0"
	// DefaultM and DefaultEFConstruction are Elasticsearch 8.19's own HNSW
	// defaults (DenseVectorFieldMapper: Lucene99HnswVectorsFormat's
	// DEFAULT_MAX_CONN 16 and DEFAULT_BEAM_WIDTH 100), sent explicitly.
	DefaultM              = 16
	DefaultEFConstruction = 100
	// MaxNumCandidates is the most num_candidates Elasticsearch takes
	// (KnnSearchBuilder.NUM_CANDS_LIMIT).
	MaxNumCandidates = 10000
)

// maxPool bounds the pool option: far above any level a run reaches.
const maxPool = 1 << 20

type options struct {
	pool            int
	refreshInterval string
	trackTotalHits  any    // bool or int, sent as JSON
	fuzziness       string // "" = not sent
	// indexed are the field types the mapping indexes (option fields); a
	// field of another type is mapped with "index": false.
	indexed map[engines.FieldType]bool
	// exact gives every Text field the sub-field "exact" (option exact).
	exact bool
	// m and efConstruction are the HNSW graph's parameters.
	m, efConstruction int
	// numCandidates is every kNN's num_candidates; 0: max(10×k, 100),
	// at most MaxNumCandidates.
	numCandidates int
}

// timeValue is an Elasticsearch time value (TimeValue.parseTimeValue), or -1.
var timeValue = regexp.MustCompile(`^(-1|[0-9]+(nanos|micros|ms|s|m|h|d))$`)

// fuzzinessValue is what Elasticsearch's Fuzziness parser accepts.
var fuzzinessValue = regexp.MustCompile(`^([012]|AUTO|AUTO:[0-9]+,[0-9]+)$`)

// parseOptions reads Config.Options (the package doc lists them).
func parseOptions(raw map[string]string) (options, error) {
	r := config.New("elasticsearch", raw)
	o := options{
		pool:            r.Int("pool", DefaultPool, 1, maxPool),
		refreshInterval: config.Value(r, "refresh_interval", DefaultRefreshInterval, parseRefreshInterval),
		trackTotalHits:  config.Value(r, "track_total_hits", any(DefaultTrackTotalHits), parseTrackTotalHits),
		fuzziness:       config.Value(r, "fuzziness", DefaultFuzziness, parseFuzziness),
		indexed:         config.Value(r, "fields", config.AllFieldTypes(), config.FieldTypes),
		exact:           r.Bool("exact", false),
		// The bounds are Lucene's HNSW format's (Lucene99HnswVectorsFormat:
		// MAXIMUM_MAX_CONN 512, MAXIMUM_BEAM_WIDTH 3200), which
		// Elasticsearch's mapping checks.
		m:              r.Int("m", DefaultM, 1, 512),
		efConstruction: r.Int("ef_construction", DefaultEFConstruction, 1, 3200),
		numCandidates:  r.Int("num_candidates", 0, 1, MaxNumCandidates),
	}
	return o, r.Err()
}

func parseRefreshInterval(v string) (string, error) {
	if !timeValue.MatchString(v) {
		return "", errors.New(`must be an Elasticsearch time value such as "1s" or "500ms", or "-1"`)
	}
	return v, nil
}

// parseFuzziness is the fuzziness sent, "" for none.
func parseFuzziness(v string) (string, error) {
	switch {
	case v == "none":
		return "", nil
	case fuzzinessValue.MatchString(v):
		return v, nil
	}
	return "", errors.New(`must be 0, 1, 2, AUTO, AUTO:low,high or none`)
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

// check returns the server's URL, the refresh parameter of writes and the
// options.
func check(cfg engines.Config) (*url.URL, string, options, error) {
	refresh, err := refreshParam(cfg.WriteMode)
	if err != nil {
		return nil, "", options{}, err
	}
	o, err := parseOptions(cfg.Options)
	if err != nil {
		return nil, "", o, err
	}
	if refresh != "" && o.refreshInterval == "-1" {
		return nil, "", o, errors.New(`elasticsearch: write mode searchable waits for a refresh, and refresh_interval "-1" never makes one`)
	}
	u, err := checkURL(cfg.URL)
	return u, refresh, o, err
}

// refreshParam is the refresh parameter every write sends in a write mode.
func refreshParam(mode engines.Visibility) (string, error) {
	mode, err := engines.CheckWriteMode("elasticsearch", mode, engines.Acknowledged, engines.Searchable)
	switch {
	case err != nil:
		return "", err
	case mode == engines.Searchable:
		return "wait_for", nil
	}
	return "", nil // refresh=false, the server's default
}

// writeArgs is the query of the hot writes (Upsert, Delete) for the
// refresh parameter.
func writeArgs(refresh string) string {
	if refresh == "" {
		return ""
	}
	return "?refresh=" + refresh
}

// checkURL returns the server's base URL. Credentials in the URL are
// refused: the client would take them over Config's, and an error that
// quotes the URL would show them. So is a path: the transport prepends it
// to req.URL.Path and leaves RawPath as it was, so net/http re-escapes the
// joined path and an escaped "/" in a document ID becomes a path separator
// (elastic-transport-go v8.9.0, setReqURL).
func checkURL(raw string) (*url.URL, error) {
	u, err := config.ServerURL("elasticsearch", raw, DefaultURL)
	switch {
	case err != nil:
		return nil, err
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
