package httpwire

import "time"

// SetCheckAfter changes how long a connection idles before it is checked
// (fastCheckAfter), so that a test need not wait a second.
func (c *FastClient) SetCheckAfter(d time.Duration) { c.checkAfter = d }
