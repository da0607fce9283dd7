package event

// Observer receives what a run is doing, as it happens: the one stream of
// a run's events. Run's own steps and the loops (through a loops.Emitter) send
// every event to it; the CLI draws its log lines and progress bars from
// it, the live view serves it, and a library caller gets all of it too. Observe may be called
// from several of the run's goroutines at once (a level's phases and its
// live progress), so it must be safe for concurrent use, and it must return
// quickly: it is never inside a timed call, but a slow one delays the loop
// that reports.
type Observer interface {
	Observe(Event)
}

// ObserverFunc adapts a function to an Observer.
type ObserverFunc func(Event)

// Observe calls f(e).
func (f ObserverFunc) Observe(e Event) { f(e) }

// Observers is one Observer that passes each event to every one of obs in
// turn (nil ones skipped): the CLI's logger and a live view watch the same
// run. Each must return quickly, as Observe must.
func Observers(obs ...Observer) Observer {
	var list []Observer
	for _, o := range obs {
		if o != nil {
			list = append(list, o)
		}
	}
	return ObserverFunc(func(e Event) {
		for _, o := range list {
			o.Observe(e)
		}
	})
}
