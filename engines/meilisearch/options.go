package meilisearch

import (
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

type options struct {
	timeout     time.Duration
	pool        int
	taskPollMax time.Duration
	strategy    meilisearch.MatchingStrategy
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
