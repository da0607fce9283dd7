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
	"sync"
	"syscall"
	"time"

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
	code := run(interrupts(os.Stderr), os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr)
	os.Exit(code)
}

// interrupts is the run's context. The first SIGINT (Ctrl-C) or SIGTERM
// ends it: the run stops, writes what it measured and removes what it
// started. The second ends the context that bounds that cleanup (againOf):
// the run gives up what it still waits for (a coordinator, the reports),
// writes result.json if it has a result, and exits; if that takes longer
// than againGrace, or a third signal comes, it exits then, an atomic write
// under way first finished, so that no file is left half written.
func interrupts(stderr io.Writer) context.Context {
	ctx, interrupt := context.WithCancel(context.Background())
	cleanup, again := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		interrupt()
		<-sigs
		fmt.Fprintln(stderr, "searchbench: interrupted again: exiting without waiting for the cleanup; containers left behind are removed by `searchbench cleanup`")
		again()
		select {
		case <-time.After(againGrace):
		case <-sigs:
		}
		writing.Lock() // never unlocked: the process ends
		os.Exit(exitFailed)
	}()
	return context.WithValue(ctx, againKey{}, cleanup)
}

// againGrace is how long a second interrupt waits for the result to be
// written before the process exits regardless.
const againGrace = 2 * time.Second

// writing is held while a result file is written, so that an exit forced by
// a second interrupt does not cut it off.
var writing sync.Mutex

type againKey struct{}

// againOf is the context a second interrupt ends; one that never ends when
// the command does not run from main (the tests call run).
func againOf(ctx context.Context) context.Context {
	if c, ok := ctx.Value(againKey{}).(context.Context); ok {
		return c
	}
	return context.Background()
}

// environ looks up an environment variable (os.LookupEnv's form): the
// process's for the program, one of its own for each of the tests that run
// the CLI side by side with different credentials.
type environ func(key string) (string, bool)

func run(ctx context.Context, args []string, env environ, stdout, stderr io.Writer) int {
	root := newRoot(env)
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

func newRoot(env environ) *cobra.Command {
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
	root.AddCommand(newRunCmd(env), newLadderCmd(env), newScenarioCmd(), newReportCmd(), newMergeCmd(), newCoordinateCmd(), newCompareCmd(), newCalibrateCmd(),
		newEnginesCmd(), newDatasetCmd(), newCleanupCmd(), newComposeCmd(), newDeployCmd(env))
	for _, c := range root.Commands() {
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	}
	return root
}
