package typesense

import "github.com/searchbench/searchbench/engines/launch"

// Image is the pinned official image.
const Image = "typesense/typesense:29.0"

// The launcher's definition. Every server flag is also an environment
// variable, TYPESENSE_ and the flag's name (Typesense's server
// configuration documentation).
//
// The image's entrypoint is the server itself (ENTRYPOINT
// ["/opt/typesense-server"], docker/deployment.Dockerfile), so a command
// would only add arguments to it, and the server refuses to start when its
// data directory does not exist (run_server in
// src/typesense_server_utils.cpp). The image declares no volume, so the
// data directory is one the base image already has.
func init() {
	launch.Register(launch.Spec{
		Engine: "typesense", Image: Image, Port: 8108,
		SecretEnv: "TYPESENSE_API_KEY",
		Env:       map[string]string{"TYPESENSE_DATA_DIR": "/tmp", "TYPESENSE_ENABLE_CORS": "false"},
		// --thread-pool-size defaults to 8 × std::thread::hardware_concurrency(),
		// the host's processors, not the container's CPU limit.
		Tune: func(cpus float64) map[string]string {
			return map[string]string{"TYPESENSE_THREAD_POOL_SIZE": launch.Threads(cpus*8, 8)}
		},
		// /health needs no key; the image has no curl, so it is polled from
		// the host.
		Ready: launch.HTTPReady("/health", `"ok":true`),
		URL:   launch.LocalHTTP,
	})
}
