package main

import (
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
)

// newCoordinateCmd is `searchbench coordinate`: the shards of a run
// register with it, start each level and rung together, and send it their
// results, which it merges and writes as one run's.
func newCoordinateCmd() *cobra.Command {
	var (
		listen, out, liveAddr string
		force                 bool
		srv                   shard.Server
	)
	cmd := &cobra.Command{
		Use:   "coordinate --listen HOST:PORT --shards N",
		Short: "Coordinate the shards of a run split over several load generators: synchronised starts, then one merged result",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := srv.Validate(); err != nil {
				return usageError{err}
			}
			if _, _, err := net.SplitHostPort(listen); err != nil {
				return badInput("listen: %q is not HOST:PORT", listen)
			}
			if err := checkOut(out, force); err != nil {
				return err
			}
			return serveShards(cmd, &srv, listen, liveAddr, out)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&listen, "listen", "", "HOST:PORT to listen on for the shards (e.g. 0.0.0.0:21900)")
	fl.IntVar(&srv.Shards, "shards", 0, "how many shards make the run")
	fl.DurationVar(&srv.RegisterTimeout, "register-timeout", shard.DefaultRegisterTimeout, "fail the run when a shard has not registered by then")
	fl.DurationVar(&srv.BarrierTimeout, "barrier-timeout", shard.DefaultBarrierTimeout, "drop a shard that is not ready for a start this long after the first one (shard 0 pre-populates meanwhile)")
	fl.DurationVar(&srv.Lead, "lead", shard.DefaultLead, "how far ahead the agreed start lies when the last shard is ready")
	fl.DurationVar(&srv.StopTimeout, "stop-timeout", shard.DefaultStopTimeout, "when interrupted, how long to wait for the shards' results once they are asked to stop (what they measured is merged and written, marked partial)")
	fl.StringVar(&liveAddr, "live", "", "serve a live view of the shards' run, merged, at this address (host:port, e.g. 127.0.0.1:8089); off by default")
	fl.StringVar(&out, "out", "results", "directory for the merged result.json, "+outputsText)
	fl.BoolVar(&force, "force", false, forceUsage)
	return cmd
}

// serveShards binds the shards' address and the live view's, holds the
// output directory, serves the shards and writes the merged result.
func serveShards(cmd *cobra.Command, srv *shard.Server, listen, liveAddr, out string) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return badInput("listen: %v", err)
	}
	liveLn, err := listenLive(liveAddr)
	if err != nil {
		ln.Close()
		return err
	}
	release, err := holdOut(out)
	if err != nil {
		ln.Close()
		if liveLn != nil {
			liveLn.Close()
		}
		return err
	}
	defer release()
	log := newLogger(cmd.ErrOrStderr())
	srv.Logf = log.printf
	if liveLn != nil {
		// The shards stream their events; the page shows them merged, as
		// the merged result will have them.
		view := serveLive(liveLn, log)
		defer view.stop() // once the merged result is written
		lv := view.lv
		srv.Events = runner.NewShardView(lv).Event
		// The coordinator's own lines (registrations, starts, losses) go
		// to the page's log too.
		srv.Logf = func(format string, args ...any) {
			log.printf(format, args...)
			lv.Observe(event.Event{Kind: event.Log, Text: fmt.Sprintf(format, args...)})
		}
	}
	log.printf("coordinating %d shards on %s; waiting up to %v for them to register", srv.Shards, ln.Addr(), srv.RegisterTimeout)
	o, err := srv.Serve(cmd.Context(), ln)
	if err != nil {
		return err
	}
	res, err := o.Merge()
	if err != nil {
		// Nothing to write here; what the shards measured is on their side.
		return fmt.Errorf("%w; each shard wrote its own result to its --out (searchbench merge joins them)", err)
	}
	logSkew(log, o.Results)
	return finish(cmd.OutOrStdout(), log, out, res, againOf(cmd.Context()))
}

// logSkew says how far apart the shards began their starts: the spread of
// their lateness at each, with the bound the clock estimates put on it.
func logSkew(log *logger, results []*result.Result) {
	sk := shard.Skews(results...)
	if len(sk) == 0 {
		return
	}
	spread := make([]time.Duration, len(sk))
	var bound time.Duration
	for i, s := range sk {
		spread[i] = s.Skew
		bound = max(bound, s.Error)
	}
	slices.Sort(spread)
	worst := sk[slices.IndexFunc(sk, func(s shard.PhaseSkew) bool { return s.Skew == spread[len(spread)-1] })]
	log.printf("start skew over %d starts: median %v, max %v (%s); the clock estimates add at most ±%v",
		len(sk), spread[len(spread)/2].Round(time.Microsecond), worst.Skew.Round(time.Microsecond), worst.Phase, bound.Round(time.Microsecond))
}
