package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/launch"
	"github.com/searchbench/searchbench/runner/result"
)

func newComposeCmd() *cobra.Command {
	var dir string
	var cpus float64
	cmd := &cobra.Command{
		Use:   "compose",
		Short: "Write one docker-compose file per engine from the launcher's definitions",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !(cpus >= 0) {
				return badInput("cpus: %v must be ≥ 0", cpus)
			}
			for _, s := range launch.Specs() {
				path := filepath.Join(dir, s.Engine+".yml")
				if err := result.WriteAtomic(path, container.Compose(s, cpus)); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), "wrote", path)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "compose", "directory to write into")
	cmd.Flags().Float64Var(&cpus, "cpus", container.ComposeCPUs, "CPU limit written into the files")
	return cmd
}
