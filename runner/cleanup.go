package runner

import (
	"context"
	"time"
)

type cleanupKey struct{}

// WithCleanup returns ctx carrying cleanup, which bounds what Run still
// does once ctx has ended: a shard sends its result to the coordinator
// (up to 30 s on a coordinator that stopped answering). Without it that
// step is bounded by its own timeout only; when cleanup ends too (a second
// Ctrl-C), Run gives it up and returns what it measured at once.
func WithCleanup(ctx, cleanup context.Context) context.Context {
	return context.WithValue(ctx, cleanupKey{}, cleanup)
}

// afterEnd is the context of a step that runs even after ctx has ended:
// it ends after d, or when ctx's cleanup context (WithCleanup) ends.
func afterEnd(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), d)
	cleanup, ok := ctx.Value(cleanupKey{}).(context.Context)
	if !ok {
		return c, cancel
	}
	stop := context.AfterFunc(cleanup, cancel)
	return c, func() {
		stop()
		cancel()
	}
}
