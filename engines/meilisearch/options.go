package meilisearch

import (
	"errors"
	"strconv"
	"time"

	"github.com/meilisearch/meilisearch-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/config"
)

// DefaultURL is where Meilisearch listens unless told otherwise.
const DefaultURL = "http://127.0.0.1:7700"

// Defaults of the options.
const (
	DefaultPool        = 2048
	DefaultTaskPollMax = 50 * time.Millisecond
)

// maxPool bounds the pool option: far above any level a run reaches.
const maxPool = 1 << 20

// DefaultSemanticRatio is the semantic_ratio option's default: the
// server's own default for a hybrid search, sent explicitly.
const DefaultSemanticRatio = 0.5

type options struct {
	timeout     time.Duration
	pool        int
	taskPollMax time.Duration
	strategy    meilisearch.MatchingStrategy
	// types are the field types the index is given (the fields option):
	// text always; tag and numeric as filterable attributes, vector as an
	// embedder.
	types map[engines.FieldType]bool
	// exact are text fields also made filterable, so that a lookup in one
	// of them is a filter on its whole value (the exact_fields option).
	exact []string
	// ratio is a hybrid search's semanticRatio.
	ratio float64
}

// parseFieldTypes reads the fields option: field types, comma-separated,
// each once, text among them (the client's Settings cannot send an empty
// searchableAttributes: it omits an empty list, which leaves every
// attribute searchable).
func parseFieldTypes(v string) (map[engines.FieldType]bool, error) {
	out, err := config.FieldTypes(v)
	if err != nil {
		return nil, err
	}
	if !out[engines.Text] {
		return nil, errors.New("must include text: the text fields are always searchable")
	}
	return out, nil
}

// parseNames reads a comma-separated list of field names, each once.
func parseNames(v string) ([]string, error) {
	return config.Names(v, validAttribute.MatchString, "a-z A-Z 0-9 _, not starting with _")
}

// parseRatio reads semantic_ratio: above 0 (the client omits a zero
// ratio, and the server would use its 0.5) and at most 1.
func parseRatio(v string) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0 && f <= 1) {
		return 0, errors.New("must be a number above 0 and at most 1")
	}
	return f, nil
}

// parseOptions reads Config.Options (the package doc lists them).
func parseOptions(raw map[string]string) (options, error) {
	r := config.New("meilisearch", raw)
	o := options{
		timeout:     r.Duration("timeout", 0),
		pool:        r.Int("pool", DefaultPool, 1, maxPool),
		taskPollMax: r.Duration("task_poll_max", DefaultTaskPollMax),
		strategy: meilisearch.MatchingStrategy(r.Enum("matching_strategy", "",
			string(meilisearch.Last), string(meilisearch.All), string(meilisearch.Frequency))),
		types: config.Value(r, "fields", config.AllFieldTypes(), parseFieldTypes),
		exact: config.Value(r, "exact_fields", nil, parseNames),
		ratio: config.Value(r, "semantic_ratio", DefaultSemanticRatio, parseRatio),
	}
	return o, r.Err()
}

// check returns the write mode (the default made explicit) and the options.
func check(cfg engines.Config) (engines.Visibility, options, error) {
	mode, err := engines.CheckWriteMode("meilisearch", cfg.WriteMode, engines.Acknowledged, engines.Searchable)
	if err != nil {
		return mode, options{}, err
	}
	// An attached server's address is the user's: checked before anything
	// starts.
	if cfg.URL != "" {
		if _, err := config.ServerURL("meilisearch", cfg.URL, DefaultURL); err != nil {
			return mode, options{}, err
		}
	}
	o, err := parseOptions(cfg.Options)
	return mode, o, err
}
