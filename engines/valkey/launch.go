package valkey

import (
	"fmt"

	"github.com/searchbench/searchbench/engines/launch"
)

// Image is the pinned official image: Valkey 9.1.0 with valkey-search 1.2.0,
// the first release with TEXT fields (valkey-io/valkey-bundle versions.json).
const Image = "valkey/valkey-bundle:9.1.0"

// The launcher's definition. The bundle's entrypoint appends --loadmodule
// for every module in /usr/lib/valkey and then $VALKEY_EXTRA_FLAGS to the
// command (valkey-bundle's bundle-docker-entrypoint.sh).
func init() {
	launch.Register(launch.Spec{
		Engine: "valkey", Image: Image, Port: 6379,
		// Persistence off, as in Study B.
		Cmd: []string{"valkey-server", "--save", "", "--appendonly", "no"},
		// valkey-search sizes its reader and writer pools from the host's
		// physical cores (/proc/cpuinfo), not the container's CPU limit.
		Tune: func(cpus float64) map[string]string {
			n := launch.Threads(cpus, 1)
			return map[string]string{"VALKEY_EXTRA_FLAGS": "--search.reader-threads " + n + " --search.writer-threads " + n}
		},
		Ready: launch.RESPReady,
		URL:   func(port int) string { return fmt.Sprintf("redis://127.0.0.1:%d", port) },
	})
}
