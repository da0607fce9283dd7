package deploy_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	k8sjson "sigs.k8s.io/json"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/searchbench/searchbench/runner/deploy"
)

func spec(shards int, secrets ...string) deploy.Spec {
	return deploy.Spec{
		Name: "bench", Namespace: "load", Image: "registry.example/searchbench:1", Shards: shards,
		Port: deploy.DefaultPort, Register: 5 * time.Minute,
		Command: []string{"run", "--engine=meilisearch", "--url=http://engine:7700", "--users=300"},
		Secrets: secrets,
	}
}

// documents splits a multi-document YAML file.
func documents(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, d := range strings.Split("\n"+string(b), "\n---\n") {
		if strings.TrimSpace(stripComments(d)) != "" {
			out = append(out, []byte(d))
		}
	}
	return out
}

func stripComments(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "#") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// The manifest decodes strictly (an unknown or misplaced field is an
// error) into the Kubernetes API's own types — core/v1 Service and Pod,
// batch/v1 Job — and says what a sharded run needs: an Indexed Job of N
// pods at once, each running the shard command with --shards N and the
// coordinator's address, which is the headless Service's name, which
// selects the coordinator pod. No cluster is involved: this is the
// manifest against the API's schema as the Go types define it, not what
// an API server's admission would add.
func TestKubernetesManifestDecodesIntoTheAPI(t *testing.T) {
	for _, n := range []int{1, 3, 7} {
		s := spec(n, "SEARCHBENCH_API_KEY")
		b, err := s.Kubernetes()
		if err != nil {
			t.Fatal(err)
		}
		docs := documents(t, b)
		if len(docs) != 3 {
			t.Fatalf("%d documents, want Service, Pod, Job", len(docs))
		}
		var svc corev1.Service
		var pod corev1.Pod
		var job batchv1.Job
		for i, into := range []any{&svc, &pod, &job} {
			if err := decodeStrict(docs[i], into); err != nil {
				t.Fatalf("document %d: %v", i, err)
			}
		}
		if svc.Kind != "Service" || svc.APIVersion != "v1" || pod.Kind != "Pod" || pod.APIVersion != "v1" || job.Kind != "Job" || job.APIVersion != "batch/v1" {
			t.Fatalf("kinds: %s %s, %s %s, %s %s", svc.APIVersion, svc.Kind, pod.APIVersion, pod.Kind, job.APIVersion, job.Kind)
		}
		for _, m := range []string{svc.Namespace, pod.Namespace, job.Namespace} {
			if m != "load" {
				t.Errorf("namespace %q", m)
			}
		}

		// The Service: headless, selecting exactly the coordinator pod.
		if svc.Spec.ClusterIP != corev1.ClusterIPNone {
			t.Errorf("clusterIP %q: not headless", svc.Spec.ClusterIP)
		}
		if len(svc.Spec.Selector) == 0 {
			t.Fatal("the Service selects nothing")
		}
		for k, v := range svc.Spec.Selector {
			if pod.Labels[k] != v {
				t.Errorf("the Service selects %s=%s; the coordinator pod has %q", k, v, pod.Labels[k])
			}
			if job.Spec.Template.Labels[k] != v {
				continue
			}
			if k == "app.kubernetes.io/component" {
				t.Errorf("the Service's selector matches the shard pods too (%s=%s)", k, v)
			}
		}
		if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != deploy.DefaultPort || svc.Spec.Ports[0].TargetPort.IntValue() != deploy.DefaultPort {
			t.Errorf("ports %+v", svc.Spec.Ports)
		}

		// The coordinator: waits for N shards, writes to the volume that
		// the results container keeps for kubectl cp.
		if pod.Spec.RestartPolicy != corev1.RestartPolicyNever || len(pod.Spec.Containers) != 2 {
			t.Fatalf("coordinator pod: restart %s, %d containers", pod.Spec.RestartPolicy, len(pod.Spec.Containers))
		}
		c := pod.Spec.Containers[0]
		if !hasArgs(c.Args, "coordinate") || !hasArgs(c.Args, "--shards", strconv.Itoa(n)) || !hasArgs(c.Args, "--listen", ":7070") || !hasArgs(c.Args, "--out", deploy.ResultsDir) {
			t.Errorf("coordinator args %q", c.Args)
		}
		if len(pod.Spec.Volumes) != 1 || pod.Spec.Volumes[0].EmptyDir == nil {
			t.Fatalf("volumes %+v: want one emptyDir", pod.Spec.Volumes)
		}
		for _, c := range pod.Spec.Containers {
			if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != pod.Spec.Volumes[0].Name || c.VolumeMounts[0].MountPath != deploy.ResultsDir {
				t.Errorf("container %s mounts %+v", c.Name, c.VolumeMounts)
			}
		}

		// The Job: Indexed, all N at once, no shard run twice.
		js := job.Spec
		if js.CompletionMode == nil || *js.CompletionMode != batchv1.IndexedCompletion {
			t.Errorf("completionMode %v", js.CompletionMode)
		}
		if js.Completions == nil || js.Parallelism == nil || int(*js.Completions) != n || int(*js.Parallelism) != n {
			t.Errorf("completions %v, parallelism %v; want %d each", js.Completions, js.Parallelism, n)
		}
		if js.BackoffLimitPerIndex == nil || *js.BackoffLimitPerIndex != 0 || js.MaxFailedIndexes == nil || int(*js.MaxFailedIndexes) != n {
			t.Errorf("backoffLimitPerIndex %v, maxFailedIndexes %v", js.BackoffLimitPerIndex, js.MaxFailedIndexes)
		}
		if js.Template.Spec.RestartPolicy != corev1.RestartPolicyNever || len(js.Template.Spec.Containers) != 1 {
			t.Fatalf("shard pod: restart %s, %d containers", js.Template.Spec.RestartPolicy, len(js.Template.Spec.Containers))
		}
		sh := js.Template.Spec.Containers[0]
		if sh.Args[0] != "run" || !hasArgs(sh.Args, "--shards", strconv.Itoa(n)) || !hasArgs(sh.Args, "--coordinator", svc.Name+":7070") {
			t.Errorf("shard args %q: want run … --shards %d --coordinator %s:7070", sh.Args, n, svc.Name)
		}
		if !slices.Contains(sh.Args, "--url=http://engine:7700") {
			t.Errorf("shard args %q lost the run's flags", sh.Args)
		}
		// The key: from the Secret, by reference.
		if len(sh.Env) != 1 || sh.Env[0].Name != "SEARCHBENCH_API_KEY" || sh.Env[0].Value != "" || sh.Env[0].ValueFrom == nil ||
			sh.Env[0].ValueFrom.SecretKeyRef == nil || sh.Env[0].ValueFrom.SecretKeyRef.Name != s.SecretName() {
			t.Errorf("shard env %+v", sh.Env)
		}
	}
}

// What the strict decoding catches: a field the API does not have, or one
// in the wrong place, fails it; so the test above can fail.
func TestStrictDecodingRejectsWhatTheAPIDoesNotHave(t *testing.T) {
	s := spec(3)
	b, err := s.Kubernetes()
	if err != nil {
		t.Fatal(err)
	}
	job := documents(t, b)[2]
	for _, bad := range []string{
		strings.Replace(string(job), "completionMode:", "completionmode:", 1),
		strings.Replace(string(job), "  parallelism:", "  paralellism:", 1),
		strings.Replace(string(job), "restartPolicy: Never", "restartPolicy: Never\n      replicas: 3", 1),
	} {
		if bad == string(job) {
			t.Fatal("the mutation did not apply")
		}
		var j batchv1.Job
		if err := decodeStrict([]byte(bad), &j); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}

// The stack file: a coordinator and N shard tasks on one overlay network,
// each shard told its index by its slot; the credentials named, not given.
func TestSwarmStackFile(t *testing.T) {
	s := spec(3, "SEARCHBENCH_PASSWORD")
	b, err := s.Swarm()
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Version  string
		Services map[string]struct {
			Image       string
			Command     []string
			Environment []string
			Volumes     []string
			Networks    []string
			Deploy      struct {
				Mode          string
				Replicas      int
				EndpointMode  string                     `yaml:"endpoint_mode"`
				RestartPolicy struct{ Condition string } `yaml:"restart_policy"`
				Placement     struct{ Constraints []string }
			}
		}
		Networks map[string]struct {
			Driver     string
			Attachable bool
			External   bool
			Name       string
		}
		Volumes map[string]struct{}
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	coord, shard := f.Services["bench-coordinator"], f.Services["bench-shard"]
	if len(f.Services) != 2 || coord.Image != s.Image || shard.Image != s.Image {
		t.Fatalf("services %v", f.Services)
	}
	if !hasArgs(coord.Command, "--shards", "3") || !hasArgs(coord.Command, "--out", deploy.ResultsDir) || coord.Deploy.Replicas != 1 {
		t.Errorf("coordinator %+v", coord)
	}
	if len(coord.Volumes) != 1 || !strings.HasSuffix(coord.Volumes[0], ":"+deploy.ResultsDir) {
		t.Errorf("coordinator volumes %q", coord.Volumes)
	}
	if !hasArgs(shard.Command, "--shards", "3") || !hasArgs(shard.Command, "--coordinator", "bench-coordinator:7070") {
		t.Errorf("shard command %q", shard.Command)
	}
	if shard.Deploy.Mode != "replicated" || shard.Deploy.Replicas != 3 || shard.Deploy.RestartPolicy.Condition != "none" {
		t.Errorf("shard deploy %+v: want 3 replicas run once", shard.Deploy)
	}
	if !slices.Equal(shard.Environment, []string{deploy.SlotEnv + "={{.Task.Slot}}", "SEARCHBENCH_PASSWORD"}) {
		t.Errorf("shard environment %q", shard.Environment)
	}
	n := f.Networks["searchbench"]
	if n.Driver != "overlay" || !slices.Equal(shard.Networks, []string{"searchbench"}) || !slices.Equal(coord.Networks, []string{"searchbench"}) {
		t.Errorf("network %+v; coordinator on %q, shards on %q", n, coord.Networks, shard.Networks)
	}

	s.Network = "engines"
	b, err = s.Swarm()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "external: true") || !strings.Contains(string(b), "name: engines") {
		t.Errorf("an existing network is not joined:\n%s", b)
	}
}

// The shards' command line is rebuilt from the parsed flags: a credential
// is left out whichever form it was given in; repeatable flags keep every
// value; what needs a secret is told from the flags or the environment.
func TestCommandLineLeavesCredentialsOut(t *testing.T) {
	fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fl.String("url", "", "")
	fl.String("api-key", "", "")
	fl.String("password", "", "")
	fl.StringArray("option", nil, "")
	fl.Int("users", 10, "")
	if err := fl.Parse([]string{"--url", "http://e:1", "--api-key=sekrit", "--option", "a=1", "--option=b=2", "--users", "300"}); err != nil {
		t.Fatal(err)
	}
	got := deploy.CommandLine("run", fl, deploy.CredentialFlags()...)
	want := []string{"run", "--option=a=1", "--option=b=2", "--url=http://e:1", "--users=300"}
	if !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	if strings.Contains(strings.Join(got, " "), "sekrit") {
		t.Error("the key is in the command line")
	}
	none := func(string) (string, bool) { return "", false }
	if got := deploy.Credentials(fl, none); !slices.Equal(got, []string{"SEARCHBENCH_API_KEY"}) {
		t.Errorf("needed %q", got)
	}
	env := func(k string) (string, bool) { return "p", k == "SEARCHBENCH_PASSWORD" }
	if got := deploy.Credentials(fl, env); !slices.Equal(got, []string{"SEARCHBENCH_PASSWORD", "SEARCHBENCH_API_KEY"}) {
		t.Errorf("needed %q", got)
	}
}

func TestSpecValidate(t *testing.T) {
	for _, c := range []struct {
		edit  func(*deploy.Spec)
		field string
	}{
		{func(s *deploy.Spec) { s.Name = "Bench" }, "name:"},
		{func(s *deploy.Spec) { s.Name = "" }, "name:"},
		{func(s *deploy.Spec) { s.Namespace = "a_b" }, "namespace:"},
		{func(s *deploy.Spec) { s.Image = "" }, "image:"},
		{func(s *deploy.Spec) { s.Shards = 0 }, "shards:"},
		{func(s *deploy.Spec) { s.Port = 70000 }, "port:"},
		{func(s *deploy.Spec) { s.Register = 0 }, "register-timeout:"},
		{func(s *deploy.Spec) { s.Command = []string{"calibrate"} }, "the shards' command"},
		{func(s *deploy.Spec) { s.Secrets = []string{"HOME"} }, "secrets:"},
	} {
		s := spec(3)
		c.edit(&s)
		_, kerr := s.Kubernetes()
		_, serr := s.Swarm()
		if kerr == nil || serr == nil || !strings.HasPrefix(kerr.Error(), c.field) || strings.Contains(kerr.Error(), "\n") {
			t.Errorf("%s: %v / %v", c.field, kerr, serr)
		}
	}
}

// decodeStrict decodes a YAML document into an API type as the API
// server's strict field validation does: YAML to JSON (a key given twice
// is an error), then JSON matched case-sensitively, an unknown field an
// error. (encoding/json, which sigs.k8s.io/yaml's own UnmarshalStrict
// uses, matches field names in any case, so completionmode would pass.)
func decodeStrict(doc []byte, into any) error {
	j, err := k8syaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strict, err := k8sjson.UnmarshalStrict(j, into, k8sjson.DisallowDuplicateFields, k8sjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// hasArgs says whether args holds want as consecutive items.
func hasArgs(args []string, want ...string) bool {
	for i := 0; i+len(want) <= len(args); i++ {
		if slices.Equal(args[i:i+len(want)], want) {
			return true
		}
	}
	return false
}
