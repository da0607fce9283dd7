package images_test

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ory/dockertest/v3"

	"github.com/searchbench/searchbench/compose/images"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/launch"
)

// The recipe embedded in the binary holds the pgvector release source, its
// licence and the script that builds it.
func TestPgvectorRecipeEmbedded(t *testing.T) {
	var names []string
	err := fs.WalkDir(images.Postgres, ".", func(p string, d fs.DirEntry, err error) error {
		names = append(names, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"build.sh", "entrypoint.sh", "pgvector/build.sh", "pgvector/pgvector-0.8.6.tar.gz", "pgvector/LICENSE", "pgvector/README.md"} {
		if !slices.Contains(names, want) {
			t.Errorf("the embedded recipe lacks %s (has %v)", want, names)
		}
	}
}

// The pgvector image the recipe builds runs PostgreSQL with the vector
// extension: an HNSW index with cosine distance answers a nearest-neighbour
// query through the index, in distance order.
func TestPgvectorImage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the pgvector image, minutes on a machine without it")
	}
	pool, err := container.Pool()
	if err != nil {
		t.Skipf("no Docker: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	spec := launch.Spec{
		Engine:   "pgvector-recipe-test",
		Image:    "pgvector/pgvector:0.8.6-pg15-bookworm",
		Fallback: images.PgvectorTag,
		Recipe:   &launch.Recipe{Files: images.Postgres, Path: "compose/images/postgres"},
	}
	image, err := container.Image(ctx, spec, container.Options{Log: func(s string) { t.Log(s) }})
	if err != nil {
		t.Fatal(err)
	}
	repo, tag, _ := cutTag(image)
	res, err := pool.RunWithOptions(&dockertest.RunOptions{Repository: repo, Tag: tag, Env: []string{"POSTGRES_PASSWORD=pw"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pool.Purge(res) }()
	url := fmt.Sprintf("postgres://postgres:pw@%s/postgres?sslmode=disable", res.GetHostPort("5432/tcp"))
	var conn *pgx.Conn
	for conn == nil {
		if conn, err = pgx.Connect(ctx, url); err != nil {
			if ctx.Err() != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, sql := range []string{
		"CREATE EXTENSION vector",
		"CREATE TABLE t (id int, e vector(3))",
		"INSERT INTO t VALUES (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0.9,0.1,0]')",
		"CREATE INDEX ON t USING hnsw (e vector_cosine_ops)",
		"SET enable_seqscan = off",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	var version string
	if err := conn.QueryRow(ctx, "SELECT extversion FROM pg_extension WHERE extname = 'vector'").Scan(&version); err != nil || version != "0.8.6" {
		t.Fatalf("vector extension version %q, %v; want 0.8.6", version, err)
	}
	rows, err := conn.Query(ctx, "EXPLAIN SELECT id FROM t ORDER BY e <=> '[1,0,0]' LIMIT 2")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if plan := strings.Join(lines, "\n"); err != nil || !strings.Contains(plan, "Index Scan using t_e_idx") {
		t.Fatalf("the query does not use the HNSW index: %v\n%s", err, plan)
	}
	rows, err = conn.Query(ctx, "SELECT id FROM t ORDER BY e <=> '[1,0,0]' LIMIT 2")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil || !slices.Equal(ids, []int{1, 3}) {
		t.Fatalf("nearest to [1,0,0]: %v, %v; want [1 3]", ids, err)
	}
}

func cutTag(image string) (repo, tag string, ok bool) {
	i := len(image) - 1
	for i >= 0 && image[i] != ':' && image[i] != '/' {
		i--
	}
	if i < 0 || image[i] != ':' {
		return image, "latest", false
	}
	return image[:i], image[i+1:], true
}
