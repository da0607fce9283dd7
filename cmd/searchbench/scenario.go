package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/searchbench/searchbench/runner/scenario"
)

// Scenario files are read and applied by the library (runner/scenario):
// `run --scenario` and `ladder --scenario` take its settings for every flag
// not given on the command line. This command lists and prints them.
func newScenarioCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario",
		Short: "List or show the shipped scenario files (run one with `searchbench run|ladder --scenario NAME`)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return badInput("scenario: list or show NAME")
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the shipped scenarios",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return listScenarios(cmd.OutOrStdout())
		},
	}, &cobra.Command{
		Use:   "show NAME",
		Short: "Print a shipped scenario file",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return badInput("scenario show: one scenario name is needed")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := scenario.Load(args[0])
			if err != nil {
				return usageError{err}
			}
			_, err = cmd.OutOrStdout().Write(f.Source)
			return err
		},
	})
	return cmd
}

func listScenarios(w io.Writer) error {
	names, err := scenario.Shipped()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tCOMMAND\tDESCRIPTION")
	for _, name := range names {
		f, err := scenario.Load(name)
		if err != nil {
			return fmt.Errorf("shipped scenario %s: %w", name, err)
		}
		desc, _, _ := strings.Cut(f.Description, "\n")
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, f.Command, desc)
	}
	return tw.Flush()
}
