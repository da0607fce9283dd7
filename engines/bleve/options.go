package bleve

import (
	"errors"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/config"
)

// check reads the configuration: no URL (the index is on local disk, in
// Config.DataDir or a temporary directory), the searchable write mode, and
// no options.
func check(cfg engines.Config) error {
	if cfg.URL != "" {
		return errors.New("bleve is embedded: it takes --data-dir, not --url")
	}
	if _, err := engines.CheckWriteMode("bleve", cfg.WriteMode, engines.Searchable); err != nil {
		return err
	}
	return config.New("bleve", cfg.Options).Err()
}
