package postgres_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/container/containertest"
	"github.com/searchbench/searchbench/engines/enginetest"
	"github.com/searchbench/searchbench/engines/postgres"
)

// server returns a URL and password for a PostgreSQL to test against:
// SEARCHBENCH_POSTGRES_URL (attach), or a container started by the launcher
// from the official image or the locally built one. It skips, with one
// line, only where neither can run here.
func server(t *testing.T, opts container.Options) (string, string, *container.Container) {
	t.Helper()
	if u := os.Getenv("SEARCHBENCH_POSTGRES_URL"); u != "" {
		return u, os.Getenv("SEARCHBENCH_POSTGRES_PASSWORD"), nil
	}
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 90 * time.Second
	}
	c := containertest.Start(t, "postgres", opts)
	return c.URL, c.Secret, c
}

func TestConformance(t *testing.T) {
	url, secret, _ := server(t, container.Options{CPUs: 1})
	conformance(t, url, secret)
}

func conformance(t *testing.T, url, secret string) {
	enginetest.Run(t, enginetest.Options{
		Open: func(t *testing.T) engines.Engine {
			e, err := engines.Open(context.Background(), "postgres", engines.Config{URL: url, Password: engines.Secret(secret)})
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
		Visibility: engines.Searchable,
	})
}

// The CPU limit reaches the container: Docker reports it and the cgroup
// inside enforces it.
func TestCPULimit(t *testing.T) {
	_, _, c := server(t, container.Options{CPUs: 1})
	if c == nil {
		t.Skip("attached to SEARCHBENCH_POSTGRES_URL: no container to inspect")
	}
	hc, err := c.HostConfig()
	if err != nil {
		t.Fatal(err)
	}
	if hc.CPUQuota != 100_000 || hc.CPUPeriod != 100_000 {
		t.Fatalf("docker inspect: CpuQuota %d, CpuPeriod %d; want 100000/100000 (1 CPU)", hc.CPUQuota, hc.CPUPeriod)
	}
	// cgroup v2's cpu.max, or v1's quota and period, in cpu.max's format.
	out, err := c.Exec("sh", "-c", "cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo $(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != "100000 100000" {
		t.Fatalf("cgroup CPU limit %q; want \"100000 100000\"", out)
	}
}

// The official image runs the same suite wherever it can be pulled.
func TestOfficialImage(t *testing.T) {
	if os.Getenv("SEARCHBENCH_POSTGRES_URL") != "" {
		t.Skip("attached to SEARCHBENCH_POSTGRES_URL")
	}
	url, secret, _ := server(t, container.Options{CPUs: 1, Image: postgres.Image})
	conformance(t, url, secret)
}

func TestOrQuery(t *testing.T) {
	if got := postgres.OrQuery("Lot foot, lot will. it's"); got != "Lot or foot or lot or will or it or s" {
		t.Fatalf("OrQuery = %q", got)
	}
}

func TestBadURLDoesNotLeakThePassword(t *testing.T) {
	_, err := engines.Open(context.Background(), "postgres", engines.Config{URL: "postgres://u:hunter2@127.0.0.1:1/x?connect_timeout=1"})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("error %v: want a failure that does not show the password", err)
	}
	if _, err := engines.Open(context.Background(), "postgres", engines.Config{}); err == nil {
		t.Fatal("no URL accepted")
	}
}

// CheckConfig reads the options and the one write mode before anything
// starts, as every driver does (config.Options, engines.CheckWriteMode).
func TestCheckConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  engines.Config
		want string // "" for valid
	}{
		{engines.Config{}, ""},
		{engines.Config{Options: map[string]string{"pool": "10000"}, WriteMode: engines.Searchable}, ""},
		{engines.Config{Options: map[string]string{"pool": "0"}}, `postgres: option pool="0": must be a whole number from 1 to 10000`},
		{engines.Config{Options: map[string]string{"pool": "10001"}}, `from 1 to 10000`},
		{engines.Config{Options: map[string]string{"shards": "2"}}, `postgres: unknown option "shards" (known: exact, fields, pool)`},
		{engines.Config{WriteMode: engines.Acknowledged}, `postgres: write mode "acknowledged" is not offered`},
	} {
		err := engines.CheckConfig("postgres", c.cfg)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v; want %q", c.cfg, err, c.want)
		}
	}
}
