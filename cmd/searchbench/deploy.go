package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/runner/deploy"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/scenario"
)

func newDeployCmd(env environ) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "deploy",
		Short: "Write the definition of a sharded run for an orchestrator: " + orchestratorHelp(),
		// An orchestrator deploy does not know is no subcommand, so cobra
		// parses the rest of the line with deploy's own flags, which are
		// none: without this, `deploy nomad --shards 3` would be told
		// "unknown flag: --shards" instead of what is wrong.
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return badInput("deploy: unknown orchestrator %q; %s", args[0], deploy.Names())
			}
			return nil
		},
		RunE: func(*cobra.Command, []string) error {
			return badInput("deploy: %s is needed, e.g. searchbench deploy %s --shards 3 --image IMAGE -- run --engine postgres --url …", deploy.Names(), deploy.Orchestrators[0].Name)
		},
	}
	for _, o := range deploy.Orchestrators {
		cmd.AddCommand(newDeployTargetCmd(o, env))
	}
	return cmd
}

// orchestratorHelp is "kubernetes (an Indexed Job) or swarm (a stack file)".
func orchestratorHelp() string {
	var parts []string
	for _, o := range deploy.Orchestrators {
		parts = append(parts, o.Name+" ("+o.What+")")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// newDeployTargetCmd is `deploy <orchestrator>`: the shards' command line
// after `--`, checked as `run` or `ladder` would check it, written into the
// orchestrator's definition without its credentials.
func newDeployTargetCmd(o deploy.Orchestrator, env environ) *cobra.Command {
	target := o.Name
	spec := deploy.Spec{Port: deploy.DefaultPort}
	var out string
	cmd := &cobra.Command{
		Use:   target + " --shards N --image IMAGE [flags] -- run|ladder ARGS…",
		Short: "Write the " + target + " definition of a run in N shards and their coordinator",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || cmd.ArgsLenAtDash() != 0 {
				return badInput("deploy %s: the shards' command goes after --, e.g. -- run --engine postgres --url …", target)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out != "" {
				if err := checkOutFile(out); err != nil {
					return err
				}
			}
			var err error
			if spec.Command, spec.Secrets, err = shardCommand(args, spec.Shards, env); err != nil {
				return err
			}
			def, err := o.Render(&spec)
			if err != nil {
				return usageError{err}
			}
			if before := o.Before(&spec); before != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), before)
			}
			if out == "" {
				_, err = cmd.OutOrStdout().Write(def)
				return err
			}
			if err := result.WriteAtomic(out, def); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "wrote", out)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&spec.Shards, "shards", 0, "number of shards N (each runs 1/N of the users or of the rate)")
	fl.StringVar(&spec.Image, "image", "", "image with searchbench as its entrypoint (see docs/sharded.md: a Debian slim base for Kubernetes)")
	fl.StringVar(&spec.Name, "name", "searchbench", "prefix of the objects' names (and of the coordinator's DNS name)")
	fl.IntVar(&spec.Port, "port", deploy.DefaultPort, "the coordinator's TCP port")
	fl.DurationVar(&spec.Register, "register-timeout", 5*time.Minute, "how long the coordinator waits for every shard to register, and a shard tries to reach it (pods may wait for an image or a node)")
	fl.StringVar(&out, "out", "", "file to write; default: standard output")
	o.Flags(fl, &spec)
	return cmd
}

// Settings deploy sets on the shards' command line itself.
var deploySets = []string{"shard", "shards", "coordinator", "register-timeout"}

// shardCommand checks the shards' command line (args: run or ladder, then
// its flags) as that command would, and returns it without its
// credentials, and the credentials' variables the shards need.
func shardCommand(args []string, shards int, env environ) ([]string, []string, error) {
	command := args[0]
	if command != scenario.Run && command != scenario.Ladder {
		return nil, nil, badInput("deploy: the shards' command must be run or ladder, not %q", command)
	}
	s := scenario.Settings{LookupEnv: env}
	fl := pflag.NewFlagSet(command, pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	s.Register(fl, command)
	if err := fl.Parse(args[1:]); err != nil {
		return nil, nil, badInput("deploy: %s: %v", command, err)
	}
	if fl.NArg() > 0 {
		return nil, nil, badInput("deploy: %s takes no arguments, got %q", command, fl.Args())
	}
	for _, name := range deploySets {
		if f := fl.Lookup(name); f != nil && f.Changed {
			return nil, nil, badInput("deploy: --%s is set by deploy itself; leave it out of the shards' command", name)
		}
	}
	if s.Scenario != "" {
		if names, _ := scenario.Shipped(); !slices.Contains(names, s.Scenario) {
			return nil, nil, badInput("deploy: scenario %q is not a shipped one, and a file on this machine is not in the image", s.Scenario)
		}
	}
	for _, sec := range (engines.Config{URL: s.URL}).Secrets() {
		if sec != "" {
			return nil, nil, badInput("deploy: url holds a password; give it with --password or SEARCHBENCH_PASSWORD, which go into the orchestrator's secret, not into the definition")
		}
	}
	cmdline := deploy.CommandLine(command, fl, deploy.CredentialFlags()...)
	secrets := deploy.Credentials(fl, env)

	// The whole plan is checked as a shard's: a sharded plan must attach
	// to one engine by URL (runner.Plan.Validate).
	for name, v := range map[string]string{"shard": fmt.Sprintf("0/%d", max(shards, 1)), "coordinator": "coordinator:1"} {
		if err := fl.Set(name, v); err != nil {
			return nil, nil, usageError{err}
		}
	}
	if err := applyScenario(&s); err != nil {
		return nil, nil, err
	}
	if _, err := s.Plan(container.Launcher{}); err != nil {
		return nil, nil, usageError{err}
	}
	return cmdline, secrets, nil
}
