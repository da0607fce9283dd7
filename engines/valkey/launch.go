package valkey

import (
	"fmt"

	"github.com/searchbench/searchbench/compose/images"
	"github.com/searchbench/searchbench/engines/launch"
)

// Image is the pinned official image: Valkey 9.1.0 with valkey-search 1.2.0,
// the first release with TEXT fields (valkey-io/valkey-bundle versions.json).
// FallbackImage is the one the launcher builds on machines that cannot pull
// it: Debian sid's valkey-server 9.1 with valkey-search 1.2.1 — Study B's
// module version — compiled from its release source by the recipe
// compose/images/valkey embedded in the binary (about 25 minutes on 2
// cores, once per machine). Its entry point takes what the bundle's takes.
const (
	Image         = "valkey/valkey-bundle:9.1.0"
	FallbackImage = images.ValkeySearchTag
)

// The launcher's definition. The bundle's entrypoint appends --loadmodule
// for every module in /usr/lib/valkey and then $VALKEY_EXTRA_FLAGS to the
// command (valkey-bundle's bundle-docker-entrypoint.sh).
func init() {
	launch.Register(launch.Spec{
		Engine: "valkey", Image: Image, Port: 6379,
		Fallback: FallbackImage,
		Recipe:   &launch.Recipe{Files: images.Valkey, Path: "compose/images/valkey"},
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
