package launch

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// The parts launcher definitions share; each engine's definition lives
// beside its driver (engines/<name>/launch.go).

// Threads is a thread or processor count derived from a CPU limit, as an
// environment value: v rounded up (a limit of 1.5 CPUs is used by two
// threads, as a container-aware JVM or Go runtime would count it), and at
// least lo.
func Threads(v, lo float64) string { return strconv.Itoa(int(math.Ceil(max(v, lo)))) }

// LocalHTTP is the base URL of an HTTP engine published on hostPort of the
// loopback interface: a Spec's URL for every HTTP engine.
func LocalHTTP(hostPort int) string { return fmt.Sprintf("http://127.0.0.1:%d", hostPort) }

// HTTPReady is a Spec's Ready for an HTTP engine: ready once GET path
// answers 200 with a body that contains want.
func HTTPReady(path, want string) func(ctx context.Context, url, secret string) error {
	return func(ctx context.Context, url, _ string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+path, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return fmt.Errorf("GET %s: %w", path, err)
		}
		defer resp.Body.Close()
		var body json.RawMessage
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			return fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		return nil
	}
}

// RESPReady is a Spec's Ready for a server speaking RESP (Redis, Valkey) at
// a redis:// URL: ready once it answers PING with PONG.
func RESPReady(ctx context.Context, url, _ string) error {
	addr := strings.TrimPrefix(url, "redis://")
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}
