package amgixnow

import "github.com/searchbench/searchbench/engines/launch"

// Image is the pinned official image: the published study's Amgix Now
// 0.1.2. Tags are the git tag itself (v0.1.2), v-less major.minor and major
// (.github/workflows/build-containers.yml in amgix/amgix-now).
const Image = "amgixio/amgix-now:v0.1.2"

// The launcher's definitions, one per driver: the same image with
// AMGIX_NOW_SYNC_DB_WRITES false (the default) or true (sources:
// build/Dockerfile.cpu, build/entrypoint.sh and src/main.rs in
// amgix/amgix-now).
func init() {
	launch.Register(spec(Name, "false"))
	launch.Register(spec(SyncName, "true"))
}

func spec(engine, syncWrites string) launch.Spec {
	return launch.Spec{
		Engine: engine, Image: Image, Port: 8235,
		Env: map[string]string{
			// Which address the server binds depends on its version: some
			// read AMGIX_NOW_LISTEN_ADDR (default 127.0.0.1:8235, which a
			// published port cannot reach), others bind 0.0.0.0:8235
			// unconditionally and never read it (src/main.rs in
			// amgix/amgix-now, issue 18). Setting it is harmless to the
			// latter and needed by the former; which one v0.1.2 is, is not
			// known here.
			"AMGIX_NOW_LISTEN_ADDR":    "0.0.0.0:8235",
			"AMGIX_NOW_SYNC_DB_WRITES": syncWrites, // true: Qdrant wait=true, a write returns once searchable
		},
		// Index threads default to available_parallelism/2 (at least 1),
		// search threads to available_parallelism (at least 2); set from
		// the CPU limit. The HTTP workers (AMGIX_NOW_WORKERS) stay at the
		// image's fixed 2, as the study ran them.
		Tune: func(cpus float64) map[string]string {
			return map[string]string{
				"AMGIX_NOW_INDEX_THREADS":  launch.Threads(cpus/2, 1),
				"AMGIX_NOW_SEARCH_THREADS": launch.Threads(cpus, 2),
			}
		},
		// The image's own HEALTHCHECK route: 200 once Qdrant is connected.
		Ready: launch.HTTPReady("/v1/health/ready", ""),
		URL:   launch.LocalHTTP,
	}
}
