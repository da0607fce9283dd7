// Package deploy writes the definitions that run a sharded searchbench on
// an orchestrator that already exists: a Kubernetes manifest (a coordinator
// Pod behind a headless Service, and an Indexed Job of N shards) and a
// Docker Swarm stack file (a coordinator service and N shard tasks on an
// overlay network). It writes text only; nothing here talks to a cluster.
//
// What the shards run is a `searchbench run` or `ladder` command line,
// already validated by the caller, without its credentials: a password or
// API key reaches the shards through the orchestrator's own secret
// mechanism (a Kubernetes Secret referenced by the pods' environment; on
// Swarm the deploying shell's environment, read by `docker stack deploy`),
// never through the generated file.
package deploy

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// DefaultPort is the coordinator's TCP port.
const DefaultPort = 7070

// Environment variables the CLI reads credentials from (runner/scenario's
// Settings.Plan falls back to them), and the keys of the Kubernetes Secret
// that holds them.
var credentials = []struct{ Flag, Env, Key string }{
	{"password", "SEARCHBENCH_PASSWORD", "password"},
	{"api-key", "SEARCHBENCH_API_KEY", "api-key"},
}

// Spec is one sharded deployment.
type Spec struct {
	Name      string        // prefix of every object's name; a DNS label
	Namespace string        // Kubernetes only; empty: the kubectl context's
	Network   string        // Swarm only: an existing overlay network to join; empty: the stack makes its own
	Image     string        // holds searchbench as its entrypoint
	Shards    int           // N ≥ 1
	Port      int           // the coordinator's
	Register  time.Duration // how long the coordinator waits for every shard to register
	Command   []string      // the shards' command line: "run" or "ladder" and its flags, without shard flags or credentials
	Secrets   []string      // the credentials' environment variables the shards need (see Credentials)
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,40}[a-z0-9])?$`)

// Validate checks the spec: each error is one line naming the field.
func (s *Spec) Validate() error {
	switch {
	case !dnsLabel.MatchString(s.Name):
		return fmt.Errorf("name: %q must be lower-case letters, digits and '-', at most 42 characters (it prefixes DNS names)", s.Name)
	case s.Namespace != "" && !dnsLabel.MatchString(s.Namespace):
		return fmt.Errorf("namespace: %q is not a DNS label", s.Namespace)
	case s.Image == "" || strings.ContainsAny(s.Image, " \t\n\"'"):
		return fmt.Errorf("image: %q is not an image reference", s.Image)
	case s.Shards < 1:
		return fmt.Errorf("shards: %d must be ≥ 1", s.Shards)
	case s.Port < 1 || s.Port > 65535:
		return fmt.Errorf("port: %d is not a TCP port", s.Port)
	case s.Register <= 0:
		return fmt.Errorf("register-timeout: %v must be > 0", s.Register)
	case len(s.Command) == 0 || (s.Command[0] != "run" && s.Command[0] != "ladder"):
		return errors.New("the shards' command must start with run or ladder")
	}
	for _, e := range s.Secrets {
		if !slices.ContainsFunc(credentials, func(c struct{ Flag, Env, Key string }) bool { return c.Env == e }) {
			return fmt.Errorf("secrets: %s is not a credential variable", e)
		}
	}
	return nil
}

// coordinatorName is the coordinator's DNS name: the headless Service's
// on Kubernetes, the service's on Swarm.
func (s *Spec) coordinatorName() string { return s.Name + "-coordinator" }

// coordinatorArgs is the coordinator's command line.
func (s *Spec) coordinatorArgs() []string {
	return []string{"coordinate", "--listen", ":" + strconv.Itoa(s.Port), "--shards", strconv.Itoa(s.Shards),
		"--register-timeout", s.Register.String(), "--out", ResultsDir}
}

// shardArgs is a shard's command line: the run's, then --shards N (the
// index comes from the orchestrator's environment), the coordinator, and
// how long to try to reach it (the coordinator's pod may start last).
func (s *Spec) shardArgs() []string {
	return append(slices.Clone(s.Command), "--shards", strconv.Itoa(s.Shards),
		"--coordinator", s.coordinatorName()+":"+strconv.Itoa(s.Port), "--register-timeout", s.Register.String())
}

// ResultsDir is where the coordinator writes the merged result, in its
// container: a volume on both orchestrators.
const ResultsDir = "/results"

// Credentials takes the credentials out of a parsed run or ladder command
// line: it returns the environment variables the shards need, those given
// as flags (to be set in the Secret by hand) and those only in env (the
// deploying environment's, by lookup).
func Credentials(fl *pflag.FlagSet, lookup func(string) (string, bool)) (needed []string) {
	for _, c := range credentials {
		f := fl.Lookup(c.Flag)
		given := f != nil && f.Changed && f.Value.String() != ""
		if v, ok := lookup(c.Env); given || (ok && v != "") {
			needed = append(needed, c.Env)
		}
	}
	return needed
}

// CommandLine writes a parsed command line back out as arguments: the
// command, then every flag given (in the flag set's order, each value of a
// repeatable flag apart), without the flags in omit. It is how the shards'
// command line loses its credentials whatever form they were given in
// (--api-key K, --api-key=K).
func CommandLine(command string, fl *pflag.FlagSet, omit ...string) []string {
	out := []string{command}
	fl.VisitAll(func(f *pflag.Flag) {
		if !f.Changed || slices.Contains(omit, f.Name) {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+f.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	return out
}

// CredentialFlags are the flags CommandLine must leave out.
func CredentialFlags() []string {
	out := make([]string, len(credentials))
	for i, c := range credentials {
		out[i] = c.Flag
	}
	return out
}

// SecretName is the Kubernetes Secret the shards' credentials come from.
func (s *Spec) SecretName() string { return s.Name + "-credentials" }

// SecretCommand is the kubectl command that makes the Secret from the
// deploying shell's environment: the value is never in the manifest.
func (s *Spec) SecretCommand() string {
	if len(s.Secrets) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("kubectl")
	if s.Namespace != "" {
		b.WriteString(" --namespace " + s.Namespace)
	}
	b.WriteString(" create secret generic " + s.SecretName())
	for _, c := range credentials {
		if slices.Contains(s.Secrets, c.Env) {
			fmt.Fprintf(&b, ` --from-literal=%s="$%s"`, c.Key, c.Env)
		}
	}
	return b.String()
}
