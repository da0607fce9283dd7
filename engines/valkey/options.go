package valkey

import (
	"errors"
	"fmt"
	"net"

	"github.com/valkey-io/valkey-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/config"
	"github.com/searchbench/searchbench/engines/quote"
)

// DefaultPoolSize is the pool option's default (the package comment says why).
const DefaultPoolSize = 2048

// settings are the parsed Options.
type settings struct {
	prefix        string
	types         map[engines.FieldType]bool // what the indexes hold
	matching      int
	idle          int
	hybrid        bool
	readerThreads int
	writerThreads int
	pool          int
	tiered        bool
}

// parseOptions reads Config.Options (the package doc lists them).
func parseOptions(opts map[string]string) (settings, error) {
	r := config.New("valkey", opts)
	s := settings{
		prefix:        config.Value(r, "prefix", "", nonEmpty),
		types:         config.Value(r, "fields", config.AllFieldTypes(), config.FieldTypes),
		matching:      r.Int("matching_indexes", 1, 0, 1000),
		idle:          r.Int("idle_indexes", 0, 0, 1000),
		hybrid:        r.Bool("hybrid", false),
		readerThreads: r.Int("reader_threads", 0, 1, 1024),
		writerThreads: r.Int("writer_threads", 0, 1, 1024),
		pool:          r.Int("pool", DefaultPoolSize, 1, 10000),
		tiered:        r.Enum("text_query", "tiered", "tiered", "or") == "tiered",
	}
	if s.hybrid && s.matching != 1 {
		r.Fail("option hybrid=on creates its own pair of indexes; it needs matching_indexes=1")
	}
	if err := checkIndexLimit(s.indexCount(), DefaultMaxIndexes, "valkey-search's default"); err != nil {
		r.Fail("%v", err)
	}
	return s, r.Err()
}

func nonEmpty(v string) (string, error) {
	if v == "" {
		return "", errors.New("must not be empty")
	}
	return v, nil
}

// parseURL reads a redis:// URL into the client's options.
func parseURL(raw string) (valkey.ClientOption, error) {
	opt, err := valkey.ParseURL(raw)
	if err != nil {
		// The parse error may quote the URL, password and all.
		return opt, fmt.Errorf("valkey: the URL %s does not parse as redis://host:port", quote.SafeURL(raw))
	}
	for _, addr := range opt.InitAddress {
		if _, port, err := net.SplitHostPort(addr); err == nil {
			if err := config.CheckPort(port); err != nil {
				return opt, fmt.Errorf("valkey: the URL's %w", err)
			}
		}
	}
	return opt, nil
}

// checkConfig is what CheckConfig, CheckSchema and Open check first: the
// write mode, an attached server's URL and the options.
func checkConfig(cfg engines.Config) (settings, error) {
	// An attached server's address is the user's: checked before anything
	// starts.
	if cfg.URL != "" {
		if _, err := parseURL(cfg.URL); err != nil {
			return settings{}, err
		}
	}
	s, err := parseOptions(cfg.Options)
	if err != nil {
		return settings{}, err
	}
	// The one write mode the layout has (settings.writeMode).
	if _, err := engines.CheckWriteMode("valkey", cfg.WriteMode, s.writeMode()); err != nil {
		return settings{}, err
	}
	return s, nil
}
