package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deploy checks the shards' command line as run and ladder do: bad input is
// one line and exit 2, and nothing is written.
func TestDeployBadInput(t *testing.T) {
	t.Parallel()
	attached := []string{"run", "--engine", "meilisearch", "--url", "http://engine:7700", "--mix", "search"}
	k8s := func(args ...string) []string {
		return append([]string{"deploy", "kubernetes", "--shards", "3", "--image", "img:1"}, args...)
	}
	for _, c := range []struct {
		args []string
		want string // in the message
	}{
		{[]string{"deploy"}, "kubernetes or swarm"},
		{[]string{"deploy", "nomad"}, `unknown orchestrator "nomad"`},
		{[]string{"deploy", "nomad", "--shards", "3"}, `unknown orchestrator "nomad"`}, // not "unknown flag: --shards"
		{k8s(), "after --"},
		{k8s(attached...), "unknown flag: --engine"}, // without --, the shards' flags are deploy's
		{k8s("--", "calibrate"), "run or ladder"},
		{k8s("--", "run"), "attached by --url"}, // the embedded engine: each shard its own
		{k8s("--", "run", "--engine", "postgres"), "attached by --url"},
		{k8s(append([]string{"--"}, append(attached, "--shard", "0/3")...)...), "--shard is set by deploy"},
		{k8s(append([]string{"--"}, append(attached, "--coordinator", "x:1")...)...), "--coordinator is set by deploy"},
		{k8s(append([]string{"--"}, append(attached, "--register-timeout", "1m")...)...), "--register-timeout is set by deploy"},
		{k8s("--", "run", "--users", "x", "--url", "http://e:1", "--engine", "meilisearch"), "users"},
		{k8s("--", "ladder", "--users", "10"), "unknown flag"},
		{k8s("--", "run", "positional"), "takes no arguments"},
		{k8s(append([]string{"--"}, append(attached, "--scenario", "/tmp/mine.yaml")...)...), "not a shipped one"},
		{k8s("--", "run", "--engine", "postgres", "--url", "postgres://u:pw@db:5432/x"), "url holds a password"},
		{append([]string{"deploy", "kubernetes", "--shards", "0", "--image", "img:1", "--"}, attached...), "shards:"},
		{append([]string{"deploy", "kubernetes", "--shards", "3", "--"}, attached...), "image:"},
		{append([]string{"deploy", "kubernetes", "--shards", "3", "--image", "img:1", "--name", "Big_Name", "--"}, attached...), "name:"},
		{append([]string{"deploy", "swarm", "--shards", "3", "--image", "img:1", "--namespace", "x", "--"}, attached...), "unknown flag"},
	} {
		code, stdout, stderr := runCLI(t, context.Background(), c.args...)
		if code != exitBadInput || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// A key given on the command line or in the environment is in neither
// definition nor anything printed: the manifest names a Secret, the stack
// file names the variable.
func TestDeployKeepsCredentialsOut(t *testing.T) {
	t.Parallel()
	const key, password = "key-d3pl0y-x", "pw-d3pl0y-y"
	env := map[string]string{"SEARCHBENCH_PASSWORD": password}
	shardArgs := []string{"--", "run", "--engine", "meilisearch", "--url", "http://engine:7700", "--api-key=" + key, "--mix", "search", "--users", "300"}
	dir := t.TempDir()
	for _, target := range []string{"kubernetes", "swarm"} {
		out := filepath.Join(dir, target+".yaml")
		code, stdout, stderr := runEnv(t, context.Background(), env, append([]string{"deploy", target, "--shards", "3", "--image", "img:1", "--out", out}, shardArgs...)...)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", target, code, stderr)
		}
		def, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{string(def), stdout, stderr} {
			if strings.Contains(text, key) || strings.Contains(text, password) {
				t.Errorf("%s: a credential is in the output:\n%s", target, text)
			}
		}
		for _, v := range []string{"SEARCHBENCH_API_KEY", "SEARCHBENCH_PASSWORD", "--users=300", "--shards"} {
			if !strings.Contains(string(def), v) {
				t.Errorf("%s: %s is not in the definition:\n%s", target, v, def)
			}
		}
		if target == "kubernetes" && !strings.Contains(stderr, "kubectl create secret generic searchbench-credentials") {
			t.Errorf("kubernetes: stderr does not say how to make the Secret: %q", stderr)
		}
	}
}
