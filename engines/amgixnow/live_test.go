package amgixnow_test

import (
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/amgixnow"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
)

// The official image runs the conformance suite under both drivers, each
// with its launcher definition (AMGIX_NOW_SYNC_DB_WRITES false or true), or
// attached to a server named by SEARCHBENCH_AMGIX_NOW_URL /
// SEARCHBENCH_AMGIX_NOW_SYNC_URL (containertest.Server). It skips with one
// line where the image cannot be pulled.
func TestLive(t *testing.T) {
	for _, tc := range []struct {
		name string
		vis  engines.Visibility
	}{
		{amgixnow.Name, engines.Acknowledged},
		{amgixnow.SyncName, engines.Searchable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, _ := containertest.Server(t, tc.name, container.Options{CPUs: 2})
			conformance(t, tc.name, tc.vis, engines.Config{URL: url})
		})
	}
}

// The product query kinds on the official image (or the server named by
// SEARCHBENCH_AMGIX_NOW_SYNC_URL), as against the fake: filtered kNN inside
// the filter, SKU lookups exact, hybrid holding both kinds of match, Get
// reading the tag and the price back.
func TestLiveProducts(t *testing.T) {
	url, _ := containertest.Server(t, amgixnow.SyncName, container.Options{CPUs: 2})
	e, src := loadedAt(t, url, nil, 300, 8)
	productQueries(t, e, src)
}
