package bleve_test

import (
	"context"
	"testing"

	"github.com/searchbench/searchbench/engines"
	_ "github.com/searchbench/searchbench/engines/bleve"
	"github.com/searchbench/searchbench/engines/enginetest"
)

func TestConformance(t *testing.T) {
	enginetest.Run(t, enginetest.Options{
		Open: func(t *testing.T) engines.Engine {
			e, err := engines.Open(context.Background(), "bleve", engines.Config{DataDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
		Visibility: engines.Searchable,
	})
}

func TestRejectsURLAcknowledgedModeAndOptions(t *testing.T) {
	for _, cfg := range []engines.Config{
		{URL: "http://127.0.0.1:1"},
		{WriteMode: engines.Acknowledged},
		{Options: map[string]string{"pool": "3"}},
	} {
		if err := engines.CheckConfig("bleve", cfg); err == nil {
			t.Errorf("CheckConfig(%+v) succeeded; want an error", cfg)
		}
		cfg.DataDir = t.TempDir()
		if _, err := engines.Open(context.Background(), "bleve", cfg); err == nil {
			t.Errorf("Open(%+v) succeeded; want an error", cfg)
		}
	}
	if err := engines.CheckConfig("bleve", engines.Config{WriteMode: engines.Searchable}); err != nil {
		t.Error(err)
	}
}
