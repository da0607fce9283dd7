package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/searchbench/searchbench/runner/result"
)

func newMergeCmd() *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "merge <shard result.json>... --out DIR",
		Short: "Merge the results of a sharded run's shards into one result (histograms added, never percentiles averaged) and write it with every report",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return badInput("merge: give the shards' result files")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOut(out, force); err != nil {
				return err
			}
			inputs, err := loadResults(args)
			if err != nil {
				return err
			}
			shards := make([]*result.Result, len(inputs))
			given := make([]string, len(inputs))
			for i, in := range inputs {
				shards[i] = in.Result
				given[i] = fmt.Sprintf("%d %s", i+1, in.Name)
				if s := in.Result.Shard; s != nil {
					given[i] += fmt.Sprintf(" (shard %d)", s.Index)
				}
			}
			res, err := result.Merge(shards...)
			if err != nil {
				// Merge names shards by index and results by position; the
				// files say which is which.
				return badInput("%v [given: %s]", err, strings.Join(given, ", "))
			}
			release, err := holdOut(out)
			if err != nil {
				return err
			}
			defer release()
			return finish(cmd.OutOrStdout(), newLogger(cmd.ErrOrStderr()), out, res, againOf(cmd.Context()))
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for the merged result.json, "+outputsText)
	cmd.Flags().BoolVar(&force, "force", false, forceUsage)
	return cmd
}
