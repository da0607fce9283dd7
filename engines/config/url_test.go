package config

import (
	"strings"
	"testing"
)

// A port out of range parses as a URL, and used to fail only when the run
// dialled it, after a container had started.
func TestServerURLPort(t *testing.T) {
	const def = "http://localhost:7700"
	for _, raw := range []string{"http://h:99999", "http://h:0", "https://[::1]:65536"} {
		if _, err := ServerURL("x", raw, def); err == nil || !strings.HasPrefix(err.Error(), "x: the URL's port ") {
			t.Errorf("%s: %v; want the port refused", raw, err)
		}
	}
	for _, raw := range []string{"http://h:65535", "http://h:1", "https://h", ""} {
		if _, err := ServerURL("x", raw, def); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
	}
}
