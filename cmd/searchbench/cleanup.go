package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/searchbench/searchbench/engines/container"
)

func newCleanupCmd() *cobra.Command {
	var run string
	cmd := &cobra.Command{
		Use:   "cleanup",
		Short: "Remove containers that earlier (crashed) runs left behind, found by their searchbench.run label",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pool, err := container.Pool()
			if err != nil {
				return err
			}
			var runs []string
			if run != "" {
				runs = []string{run}
			}
			removed, err := container.Cleanup(pool, runs...)
			if len(removed) > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "removed %d container(s): %s\n", len(removed), strings.Join(removed, " "))
			} else if err == nil {
				fmt.Fprintln(cmd.OutOrStdout(), "no searchbench containers found")
			}
			return err
		},
	}
	// Runs going on beside this one (another terminal, a test suite) keep
	// their containers when a run is named.
	cmd.Flags().StringVar(&run, "run-name", "", "remove only the containers of this run (the searchbench.run label's value); default: every run's")
	return cmd
}
