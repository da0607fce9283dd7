// Command searchbench benchmarks search engines under mixed, concurrent,
// read-and-write traffic. See README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	// Every driver registers itself (engines/all lists them).
	_ "github.com/searchbench/searchbench/engines/all"
)

// Exit codes.
const (
	exitOK       = 0
	exitFailed   = 1 // the run failed, was interrupted, or measured errors
	exitBadInput = 2 // nothing was started
)

// usageError marks bad input: one line, exit code 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func badInput(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "searchbench:", err)
	var u usageError
	if errors.As(err, &u) {
		return exitBadInput
	}
	return exitFailed
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "searchbench",
		Short:         "Benchmark search engines under mixed, concurrent read-and-write traffic",
		SilenceUsage:  true,
		SilenceErrors: true,
		// A bare `searchbench` or an unknown subcommand is bad input.
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return badInput("unknown command %q; see searchbench --help", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return badInput("a command is required (run, ladder, scenario, report, merge, coordinate, compare, calibrate, engines, dataset, cleanup, compose, deploy); see searchbench --help")
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newRunCmd(), newLadderCmd(), newScenarioCmd(), newReportCmd(), newMergeCmd(), newCoordinateCmd(), newCompareCmd(), newCalibrateCmd(),
		newEnginesCmd(), newDatasetCmd(), newCleanupCmd(), newComposeCmd(), newDeployCmd())
	for _, c := range root.Commands() {
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	}
	return root
}
