package main

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/runner/shard"
)

// newCoordinateCmd is `searchbench coordinate`: the shards of a run
// register with it, start each level and rung together, and send it their
// results, which it merges and writes as one run's.
func newCoordinateCmd() *cobra.Command {
	var (
		listen, out, liveAddr string
		srv                   shard.Server
	)
	cmd := &cobra.Command{
		Use:   "coordinate --listen HOST:PORT --shards N",
		Short: "Coordinate the shards of a run split over several load generators: synchronised starts, then one merged result",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case srv.Shards < 1 || srv.Shards > shard.MaxShards:
				return badInput("shards: %d is out of range (1 to %d)", srv.Shards, shard.MaxShards)
			case srv.RegisterTimeout <= 0:
				return badInput("register-timeout: %v must be > 0", srv.RegisterTimeout)
			case srv.BarrierTimeout <= 0:
				return badInput("barrier-timeout: %v must be > 0", srv.BarrierTimeout)
			case srv.Lead <= 0 || srv.Lead > time.Minute:
				return badInput("lead: %v must be in (0, 1m]", srv.Lead)
			}
			if _, _, err := net.SplitHostPort(listen); err != nil {
				return badInput("listen: %q is not HOST:PORT", listen)
			}
			if err := checkOut(out); err != nil {
				return err
			}
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
				// The shards stream their events; the page shows them
				// merged, as the merged result will have them.
				lv, stop := serveLive(liveLn, log)
				defer stop()
				srv.Events = runner.NewShardView(lv).Event
				// The coordinator's own lines (registrations, starts,
				// losses) go to the page's log too.
				srv.Logf = func(format string, args ...any) {
					log.printf(format, args...)
					lv.Observe(runner.Event{Kind: runner.EventLog, Text: fmt.Sprintf(format, args...)})
				}
			}
			log.printf("coordinating %d shards on %s; waiting up to %v for them to register", srv.Shards, ln.Addr(), srv.RegisterTimeout)
			o, err := srv.Serve(cmd.Context(), ln)
			if err != nil {
				return err
			}
			res, err := mergeOutcome(o)
			if err != nil {
				return err
			}
			logSkew(log, o.Results)
			return finish(cmd.OutOrStdout(), log, out, res)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&listen, "listen", "", "HOST:PORT to listen on for the shards (e.g. 0.0.0.0:21900)")
	fl.IntVar(&srv.Shards, "shards", 0, "how many shards make the run")
	fl.DurationVar(&srv.RegisterTimeout, "register-timeout", shard.DefaultRegisterTimeout, "fail the run when a shard has not registered by then")
	fl.DurationVar(&srv.BarrierTimeout, "barrier-timeout", shard.DefaultBarrierTimeout, "drop a shard that is not ready for a start this long after the first one (shard 0 pre-populates meanwhile)")
	fl.DurationVar(&srv.Lead, "lead", shard.DefaultLead, "how far ahead the agreed start lies when the last shard is ready")
	fl.StringVar(&liveAddr, "live", "", "serve a live view of the shards' run, merged, at this address (host:port, e.g. 127.0.0.1:8089); off by default")
	fl.StringVar(&out, "out", "results", "directory for the merged result.json, "+outputsText)
	return cmd
}

// mergeOutcome merges the results that came in, naming each missing shard
// with the reason the coordinator saw.
func mergeOutcome(o *shard.Outcome) (*result.Result, error) {
	var got []*result.Result
	for _, r := range o.Results {
		if r != nil {
			got = append(got, r)
		}
	}
	var missing []string
	for i := range o.Results {
		if why, ok := o.Missing[i]; ok {
			missing = append(missing, fmt.Sprintf("shard %d: %s", i, why))
		}
	}
	if len(got) == 0 {
		return nil, fmt.Errorf("no shard's result came in (%s)", strings.Join(append(missing, o.Reason), "; "))
	}
	res, err := result.Merge(got...)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	for i := range res.Shards {
		s := &res.Shards[i]
		if why, ok := o.Missing[s.Index]; ok {
			s.Missing, s.Reason = true, why
		}
		if s.Hostname == "" && s.Index < len(o.Hosts) {
			s.Hostname = o.Hosts[s.Index]
		}
	}
	// Merge says a shard is missing; the coordinator knows why.
	reasons := missing
	if o.Reason != "" {
		reasons = append([]string{o.Reason}, reasons...)
	}
	for _, r := range strings.Split(res.Reason, "; ") {
		if r != "" && !strings.HasPrefix(r, "missing shard") {
			reasons = append(reasons, r)
		}
	}
	if len(reasons) > 0 {
		res.Partial, res.Reason = true, strings.Join(reasons, "; ")
	}
	return res, nil
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
