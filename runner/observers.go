package runner

import "github.com/searchbench/searchbench/runner/event"

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
	return ObserverFunc(func(e event.Event) {
		for _, o := range list {
			o.Observe(e)
		}
	})
}
