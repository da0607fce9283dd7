package container

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// The published study's engines, pinned as it ran them. Their drivers come
// with their own packages; the launcher definitions live here so that the
// compose files for every engine have one source from the start. Sources
// for every setting: ../shared/reference/engines.md.
func init() {
	for _, s := range []Spec{
		{
			Engine: "meilisearch", Image: "getmeili/meilisearch:v1.37.0", Port: 7700,
			SecretEnv: "MEILI_MASTER_KEY",
			Env:       map[string]string{"MEILI_ENV": "production", "MEILI_NO_ANALYTICS": "true"},
			// The indexer's thread default is not known to follow a CPU quota.
			Tune: func(cpus float64) map[string]string {
				return map[string]string{"MEILI_MAX_INDEXING_THREADS": atLeast(cpus, 1)}
			},
			Ready: httpReady("/health", `"available"`),
			URL:   httpURL,
		},
		{
			Engine: "typesense", Image: "typesense/typesense:29.0", Port: 8108,
			SecretEnv: "TYPESENSE_API_KEY",
			Env:       map[string]string{"TYPESENSE_DATA_DIR": "/data", "TYPESENSE_ENABLE_CORS": "false"},
			Cmd:       []string{"sh", "-c", "mkdir -p /data && exec /opt/typesense-server"},
			// --thread-pool-size defaults to the host's NUM_CORES × 8.
			Tune: func(cpus float64) map[string]string {
				return map[string]string{"TYPESENSE_THREAD_POOL_SIZE": atLeast(cpus*8, 8)}
			},
			Ready: httpReady("/health", `"ok":true`),
			URL:   httpURL,
		},
		{
			Engine: "elasticsearch", Image: "docker.elastic.co/elasticsearch/elasticsearch:8.19.6", Port: 9200,
			Env: map[string]string{
				"discovery.type":         "single-node",
				"xpack.security.enabled": "false",
				"ES_JAVA_OPTS":           "-Xms16g -Xmx16g", // the study's heap; Xms = Xmx for repeatability
			},
			Tune:  func(cpus float64) map[string]string { return map[string]string{"node.processors": atLeast(cpus, 1)} },
			Ready: httpReady("/_cluster/health?wait_for_status=yellow&timeout=1s", `"status"`),
			URL:   httpURL,
		},
		amgix("amgix-now", "false"),
		amgix("amgix-now-sync", "true"),
		{
			Engine: "valkey", Image: "valkey/valkey-bundle:9.1.0", Port: 6379,
			// Persistence off, as in Study B.
			Cmd: []string{"valkey-server", "--save", "", "--appendonly", "no"},
			// valkey-search sizes its pools from the host's physical cores.
			Tune: func(cpus float64) map[string]string {
				n := atLeast(cpus, 1)
				return map[string]string{"VALKEY_EXTRA_FLAGS": "--search.reader-threads " + n + " --search.writer-threads " + n}
			},
			Ready: respReady,
			URL:   func(port int) string { return fmt.Sprintf("redis://127.0.0.1:%d", port) },
		},
	} {
		Register(s)
	}
}

func amgix(engine, sync string) Spec {
	return Spec{
		Engine: engine, Image: "amgixio/amgix-now:v0.1.2", Port: 8235,
		Env: map[string]string{
			"AMGIX_NOW_LISTEN_ADDR":    "0.0.0.0:8235",
			"AMGIX_NOW_SYNC_DB_WRITES": sync, // true: a write returns once it is searchable
		},
		// Index threads default to available_parallelism/2, search threads
		// to available_parallelism (min 2).
		Tune: func(cpus float64) map[string]string {
			return map[string]string{"AMGIX_NOW_INDEX_THREADS": atLeast(cpus/2, 1), "AMGIX_NOW_SEARCH_THREADS": atLeast(cpus, 2)}
		},
		Ready: httpReady("/v1/health/ready", ""),
		URL:   httpURL,
	}
}

func atLeast(v, lo float64) string { return strconv.Itoa(int(max(v, lo))) }

func httpURL(port int) string { return fmt.Sprintf("http://127.0.0.1:%d", port) }

// httpReady is ready on a 200 whose body contains want.
func httpReady(path, want string) func(context.Context, string, string) error {
	return func(ctx context.Context, url, _ string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+path, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return fmt.Errorf("GET %s: %w", path, err)
		}
		defer resp.Body.Close()
		var body json.RawMessage
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			return fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		return nil
	}
}

// respReady is ready when the server answers PING with PONG.
func respReady(ctx context.Context, url, _ string) error {
	addr := strings.TrimPrefix(url, "redis://")
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}
