package deploy

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// Orchestrator is one orchestrator a sharded run can be deployed on: the
// one place that says what `searchbench deploy <name>` writes, so that a
// new orchestrator is a file here and an entry in Orchestrators.
type Orchestrator struct {
	Name string
	What string // what its definition is, for the help: "an Indexed Job"
	// Render writes the definition of s.
	Render func(s *Spec) ([]byte, error)
	// Flags adds the orchestrator's own settings of s to fl.
	Flags func(fl *pflag.FlagSet, s *Spec)
	// Before is what a person must do before applying the definition of s,
	// or "" when nothing.
	Before func(s *Spec) string
}

// Orchestrators is every orchestrator, in the order help lists them.
var Orchestrators = []Orchestrator{
	{
		Name: "kubernetes", What: "an Indexed Job",
		Render: (*Spec).Kubernetes,
		Flags: func(fl *pflag.FlagSet, s *Spec) {
			fl.StringVar(&s.Namespace, "namespace", "", "namespace of every object; default: the kubectl context's")
		},
		Before: func(s *Spec) string {
			if len(s.Secrets) == 0 {
				return ""
			}
			return fmt.Sprintf("the shards read %v from the Secret %s, which the manifest names but does not hold; with the value in that variable, make it before applying:\n  %s",
				s.Secrets, s.SecretName(), s.SecretCommand())
		},
	},
	{
		Name: "swarm", What: "a stack file",
		Render: (*Spec).Swarm,
		Flags: func(fl *pflag.FlagSet, s *Spec) {
			fl.StringVar(&s.Network, "network", "", "an existing attachable overlay network to join (the engine's); default: the stack makes its own")
		},
		Before: func(*Spec) string { return "" },
	},
}

// Names is the orchestrators' names, "kubernetes or swarm".
func Names() string {
	names := make([]string, len(Orchestrators))
	for i, o := range Orchestrators {
		names[i] = o.Name
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
