package meilisearch

import "github.com/searchbench/searchbench/engines/launch"

// Image is the pinned official image.
const Image = "getmeili/meilisearch:v1.37.0"

// The launcher's definition. Production mode makes the master key mandatory;
// the launcher generates one (36 characters, above the 16-byte minimum).
func init() {
	launch.Register(launch.Spec{
		Engine: "meilisearch", Image: Image, Port: 7700,
		SecretEnv: "MEILI_MASTER_KEY",
		Env:       map[string]string{"MEILI_ENV": "production", "MEILI_NO_ANALYTICS": "true"},
		// The indexer's default is half the processors num_cpus counts
		// (MaxThreads::default in Meilisearch's opt.rs; "the indexer avoids
		// using more than half of a machine's total processing units", the
		// RAM and multithreading page of its docs). Set from the CPU limit
		// so the default holds whatever the host has.
		Tune: func(cpus float64) map[string]string {
			return map[string]string{"MEILI_MAX_INDEXING_THREADS": launch.Threads(cpus/2, 1)}
		},
		// /health needs no key.
		Ready: launch.HTTPReady("/health", `"available"`),
		URL:   launch.LocalHTTP,
	})
}
