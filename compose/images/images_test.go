package images_test

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
	"github.com/valkey-io/valkey-go"

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

// The valkey-search image the recipe builds: its labels say what it holds
// (Debian's valkey-server 9.1, valkey-search 1.2.1, the build's seconds),
// the server loads the module at its release's version, and an HNSW index
// with cosine distance answers a nearest-neighbour query in distance
// order. The official bundle is not asked for: this is the recipe's image.
func TestValkeySearchImage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the valkey-search image, about 25 minutes on a machine without it")
	}
	pool, err := container.Pool()
	if err != nil {
		t.Skipf("no Docker: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	spec := launch.Spec{
		Engine:   "valkey-search-recipe-test",
		Image:    images.ValkeySearchTag,
		Fallback: images.ValkeySearchTag,
		Recipe:   &launch.Recipe{Files: images.Valkey, Path: "compose/images/valkey"},
	}
	image, err := container.Image(ctx, spec, container.Options{Log: func(s string) { t.Log(s) }})
	if err != nil {
		t.Fatal(err)
	}
	info, err := pool.Client.InspectImage(image)
	if err != nil {
		t.Fatal(err)
	}
	labels := info.Config.Labels
	server := labels["org.searchbench.valkey-server"]
	secs, serr := strconv.Atoi(labels["org.searchbench.build-seconds"])
	if !regexp.MustCompile(`^9\.1\.\d+`).MatchString(server) || labels["org.searchbench.valkey-search"] != "1.2.1" || serr != nil || secs <= 0 {
		t.Fatalf("labels %v; want valkey-server 9.1.x, valkey-search 1.2.1 and the build's seconds", labels)
	}
	t.Logf("%s: valkey-server %s, valkey-search %s, built in %d s", image, server, labels["org.searchbench.valkey-search"], secs)

	repo, tag, _ := cutTag(image)
	res, err := pool.RunWithOptions(&dockertest.RunOptions{Repository: repo, Tag: tag}, func(hc *dc.HostConfig) { hc.CPUPeriod, hc.CPUQuota = 100_000, 100_000 }) // 1 CPU
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pool.Purge(res) }()
	// Docker's proxy takes connections before the server does: ready is a
	// PING answered, within a minute (a server that exits at once, as one
	// that cannot load its module does, is never ready).
	ready := time.Now().Add(time.Minute)
	var c valkey.Client
	for {
		c, err = valkey.NewClient(valkey.ClientOption{InitAddress: []string{res.GetHostPort("6379/tcp")}, DisableCache: true, ForceSingleClient: true})
		if err == nil {
			if err = c.Do(ctx, c.B().Ping().Build()).Error(); err == nil {
				break
			}
			c.Close()
		}
		if time.Now().After(ready) {
			t.Fatalf("the server did not answer PING within a minute (%v); its log:\n%s", err, containerLog(pool, res))
		}
		time.Sleep(200 * time.Millisecond)
	}
	defer c.Close()
	do := func(args ...string) valkey.ValkeyResult {
		return c.Do(ctx, c.B().Arbitrary(args[0]).Args(args[1:]...).Build())
	}
	// MODULE LIST: the module's integer version is
	// vmsdk::ValkeyVersion(1, 2, 1) = 1<<16 | 2<<8 | 1 (src/version.h,
	// vmsdk/src/utils.h at tag 1.2.1).
	mods, err := do("MODULE", "LIST").ToArray()
	if err != nil {
		t.Fatal(err)
	}
	var ver int64 = -1
	for _, m := range mods {
		kv, err := m.AsMap()
		if err != nil {
			t.Fatal(err)
		}
		name, ok := kv["name"]
		if s, _ := name.ToString(); ok && s == "search" {
			v := kv["ver"]
			ver, _ = v.AsInt64()
		}
	}
	if want := int64(1<<16 | 2<<8 | 1); ver != want {
		t.Fatalf("MODULE LIST: search ver %d; want %d (1.2.1)", ver, want)
	}
	text, err := do("INFO", "server").ToString()
	if err != nil || !strings.Contains(text, "valkey_version:9.1.") {
		t.Fatalf("INFO server: %v\n%s", err, text)
	}
	vec := func(fs ...float32) string { return valkey.VectorString32(fs) }
	for _, cmd := range [][]string{
		{"FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "p:", "SCHEMA", "e", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "3", "DISTANCE_METRIC", "COSINE"},
		{"HSET", "p:1", "e", vec(1, 0, 0)},
		{"HSET", "p:2", "e", vec(0, 1, 0)},
		{"HSET", "p:3", "e", vec(0.9, 0.1, 0)},
	} {
		if err := do(cmd...).Error(); err != nil {
			t.Fatalf("%s: %v", cmd[0], err)
		}
	}
	reply, err := do("FT.SEARCH", "idx", "*=>[KNN 2 @e $q]", "PARAMS", "2", "q", vec(1, 0, 0), "NOCONTENT", "DIALECT", "2").ToArray()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range reply[1:] {
		k, _ := r.ToString()
		keys = append(keys, k)
	}
	if total, _ := reply[0].AsInt64(); total != 2 || !slices.Equal(keys, []string{"p:1", "p:3"}) {
		t.Fatalf("nearest to [1,0,0]: total %d, %v; want 2, [p:1 p:3]", total, keys)
	}
}

// containerLog is the last lines of a container's output.
func containerLog(pool *dockertest.Pool, res *dockertest.Resource) string {
	var out strings.Builder
	_ = pool.Client.Logs(dc.LogsOptions{Container: res.Container.ID, OutputStream: &out, ErrorStream: &out, Stdout: true, Stderr: true, Tail: "10"})
	return out.String()
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
