// Package images holds the recipes that build, on a machine that cannot
// pull an engine's official image, a stand-in from Debian's packages. They
// are embedded in the binary, so the launcher can build a missing image
// from any working directory and from an installed searchbench, not only
// from the repository's root.
package images

import (
	"embed"
	"io/fs"
)

//go:embed postgres valkey
var recipes embed.FS

// Postgres is the recipe of searchbench/postgres:15: build.sh (its first
// argument is the tag) and the entry point it installs. Given a
// searchbench/pgvector tag (PgvectorTag), the same recipe builds that image
// on top of it, with pgvector compiled from the release source kept in
// postgres/pgvector.
var Postgres = sub("postgres")

// Valkey is the recipe of searchbench/valkey-search:1.2.1 (ValkeySearchTag):
// Debian sid's valkey-server with the valkey-search 1.2.1 module compiled
// from the release source kept in valkey/valkey-search, with the patches
// beside it. Its build.sh takes the tag as its first argument.
var Valkey = sub("valkey")

// PostgresTag and PgvectorTag are the images the Postgres recipe builds,
// ValkeySearchTag the one the Valkey recipe builds.
const (
	PostgresTag     = "searchbench/postgres:15"
	PgvectorTag     = "searchbench/pgvector:0.8.6-pg15"
	ValkeySearchTag = "searchbench/valkey-search:1.2.1"
)

func sub(dir string) fs.FS {
	f, err := fs.Sub(recipes, dir)
	if err != nil {
		panic(err) // a directory embedded above: cannot fail
	}
	return f
}
