package elasticsearch

import "github.com/searchbench/searchbench/engines/launch"

// Image is the pinned official image.
const Image = "docker.elastic.co/elasticsearch/elasticsearch:8.19.6"

// DefaultHeap is the published study's heap, set as both -Xms and -Xmx so
// the JVM never resizes it during a run. A machine with less memory
// overrides it: --container-env ES_JAVA_OPTS="-Xms4g -Xmx4g".
const DefaultHeap = "-Xms16g -Xmx16g"

// The launcher's definition (sources: Elasticsearch 8.19's "Install
// Elasticsearch with Docker" and "Bootstrap checks" pages): one node
// (single-node discovery skips the production bootstrap checks), security off so the driver speaks plain
// HTTP with no credential, and node.processors from the CPU limit — the
// JVM's own count of a fractional quota is not relied on, and the thread
// pools (write, search) are sized from it.
func init() {
	launch.Register(launch.Spec{
		Engine: "elasticsearch", Image: Image, Port: 9200,
		Env: map[string]string{
			"discovery.type":         "single-node",
			"xpack.security.enabled": "false",
			"ES_JAVA_OPTS":           DefaultHeap,
		},
		Tune: func(cpus float64) map[string]string {
			return map[string]string{"node.processors": launch.Threads(cpus, 1)}
		},
		// A health wait that times out answers 408: not ready yet.
		Ready: launch.HTTPReady("/_cluster/health?wait_for_status=yellow&timeout=1s", `"status"`),
		URL:   launch.LocalHTTP,
	})
}
