package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/searchbench/searchbench/runner/report"
	"github.com/searchbench/searchbench/runner/scenario"
)

func newCompareCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "compare <A.json>[,<A2.json>...] <B.json>[,<B2.json>...]",
		Short: "Compare two results figure by figure, marking differences within noise; a side may list repeated runs, comma-separated",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return badInput("compare: give two sides, A and B (each a result file, or repeated runs comma-separated), got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var sides [2][]report.Input
			for i, arg := range args {
				paths, err := scenario.SplitList(arg)
				if err != nil {
					return badInput("compare: side %c: %v", 'A'+i, err)
				}
				if sides[i], err = loadResults(paths); err != nil {
					return err
				}
			}
			if err := report.Compare(cmd.OutOrStdout(), sides[0], sides[1]); err != nil {
				if errors.Is(err, report.ErrDifferentKinds) {
					return badInput("compare: %v", err)
				}
				return fmt.Errorf("compare: %w", err)
			}
			return nil
		},
	}
}
