package meilisearch_test

import (
	"os"
	"testing"

	"github.com/searchbench/searchbench/engines/enginetest/apispec"
)

// TestMain checks every request this package's tests make the driver send
// to the fake, and every answer the fake gives, against Meilisearch's published
// OpenAPI document (package apispec).
func TestMain(m *testing.M) { os.Exit(apispec.Main(m, apispec.Meilisearch)) }
