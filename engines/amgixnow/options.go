package amgixnow

import (
	"fmt"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/config"
)

// DefaultURL is where Amgix Now listens unless told otherwise.
const DefaultURL = "http://127.0.0.1:8235"

// Defaults and limits.
const (
	DefaultTimeout = 30 * time.Second
	DefaultPool    = 2048
	MaxLimit       = 100 // Amgix's MAX_SEARCH_LIMIT
	MaxBulk        = 100 // Amgix's MAX_BULK_UPLOAD
	maxTopK        = 10000
	singleWriters  = 16 // concurrent single writes of UpsertBatch with bulk=false
	// VectorName is the collection's one vector.
	VectorName = "ft"
)

// maxPool bounds the pool option: far above any level a run reaches.
const maxPool = 1 << 20

type options struct {
	timeout time.Duration
	pool    int
	queued  bool
	bulk    bool
	topK    int
}

// parseOptions reads Config.Options (the package doc lists them).
func parseOptions(driver string, raw map[string]string) (options, error) {
	r := config.New(driver, raw)
	o := options{
		timeout: r.Duration("timeout", DefaultTimeout),
		pool:    r.Int("pool", DefaultPool, 1, maxPool),
		queued:  r.Enum("route", "sync", "sync", "queued") == "queued",
		bulk:    r.Bool("bulk", true),
		topK:    r.Int("top_k", 0, 1, maxTopK),
	}
	return o, r.Err()
}

func (d driver) check(cfg engines.Config) (options, error) {
	if _, err := engines.CheckWriteMode(d.name, cfg.WriteMode, d.vis); err != nil {
		other := SyncName
		if d.vis == engines.Searchable {
			other = Name
		}
		return options{}, fmt.Errorf("%w: the server's AMGIX_NOW_SYNC_DB_WRITES decides; use %s", err, other)
	}
	o, err := parseOptions(d.name, cfg.Options)
	if err != nil {
		return o, err
	}
	if o.queued && d.vis == engines.Searchable {
		return o, fmt.Errorf("%s: route=queued writes may be queued, so they cannot be searchable on return; use %s", d.name, Name)
	}
	if cfg.Username != "" || cfg.Password != "" {
		return o, fmt.Errorf("%s: Amgix Now has no user or password, only an API key", d.name)
	}
	// An attached server's address is the user's: checked before anything
	// starts.
	if cfg.URL != "" {
		if _, err := config.ServerURL(d.name, cfg.URL, DefaultURL); err != nil {
			return o, err
		}
	}
	return o, nil
}
