// Package all registers every driver of this build: the CLI and every test
// that needs "all engines" import it for its side effect,
//
//	import _ "github.com/searchbench/searchbench/engines/all"
//
// so adding an engine is its package plus one line here (and, for an engine
// that runs as a server, its launcher definition in the package's launch.go
// and the compose file `searchbench compose` writes from it; a test checks
// both).
package all

import (
	_ "github.com/searchbench/searchbench/engines/amgixnow"
	_ "github.com/searchbench/searchbench/engines/bleve"
	_ "github.com/searchbench/searchbench/engines/elasticsearch"
	_ "github.com/searchbench/searchbench/engines/meilisearch"
	_ "github.com/searchbench/searchbench/engines/postgres"
	_ "github.com/searchbench/searchbench/engines/typesense"
	_ "github.com/searchbench/searchbench/engines/valkey"
)
