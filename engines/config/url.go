package config

import (
	"fmt"
	"net/url"
	"strconv"
)

// ServerURL parses an HTTP engine's address: raw, or def (the engine's
// usual local address) when raw is empty. The error names the driver and
// the form an address takes, and never quotes raw, which may hold a
// password.
func ServerURL(driver, raw, def string) (*url.URL, error) {
	if raw == "" {
		raw = def
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		port := "port"
		if d, err := url.Parse(def); err == nil && d.Port() != "" {
			port = d.Port()
		}
		return nil, fmt.Errorf("%s: the URL must look like http://host:%s", driver, port)
	}
	if err := CheckPort(u.Port()); err != nil {
		return nil, fmt.Errorf("%s: the URL's %w", driver, err)
	}
	return u, nil
}

// CheckPort refuses a port outside 1…65535 ("" is the scheme's default).
// net/url takes any digits as a port, so http://host:99999 parses, and
// fails only when the run dials it, after a container has started.
func CheckPort(port string) error {
	if port == "" {
		return nil
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %s is not 1 to 65535", port)
	}
	return nil
}
