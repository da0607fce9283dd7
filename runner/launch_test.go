package runner

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/searchbench/searchbench/engines/launch"
	"github.com/searchbench/searchbench/runner/event"
	"github.com/searchbench/searchbench/runner/field"
	"github.com/searchbench/searchbench/runner/internal/runnertest"
)

// fakeLauncher "launches" the sharedmem driver (shard_test.go): an engine
// in this process, reached by a fresh URL, as a container's is by its port.
type fakeLauncher struct {
	t         *testing.T
	urlSuffix string // after the launched engine's URL: "leaky" makes its searches quote its password
	secretEnv string
	none      bool // it can launch no engine
	checkErr  error
	launchErr error
	closeErr  error

	mu     sync.Mutex
	opts   []launch.Options
	closed int
}

func (l *fakeLauncher) Launches(driver string) (string, bool) {
	return l.secretEnv, driver == "sharedmem" && !l.none
}

func (l *fakeLauncher) Check(launch.Options) error { return l.checkErr }

func (l *fakeLauncher) Launch(_ context.Context, driver string, o launch.Options) (*launch.Engine, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.opts = append(l.opts, o)
	if l.launchErr != nil {
		return nil, l.launchErr
	}
	return &launch.Engine{
		URL: uniqueURL(l.t) + l.urlSuffix, Secret: "launched-Secret-4242", Image: "fake/" + driver + ":1", Digest: "sha256:feed",
		Env: map[string]string{"THREADS": "1"}, Docker: "28.2.2", ID: "0123456789abcdef0123",
		Stats: func(context.Context) (map[string]float64, error) {
			return map[string]float64{"container_cpu_cores": 0.5}, nil
		},
		Close: func() error {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.closed++
			return l.closeErr
		},
	}, nil
}

func (l *fakeLauncher) Leftovers() (int, error) { return 2, nil }

// A plan that would start an engine and has no Launcher is refused by
// Validate, naming the field and both ways out, before anything starts.
func TestAPlanThatLaunchesNeedsALauncher(t *testing.T) {
	src := runnertest.Text(t, 100, 0.5)
	p := Plan{Source: src, Setups: []Setup{{Driver: "sharedmem"}}, Closed: ptr(quickConfig(1))}
	err := p.Validate()
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != "Plan.Setups[0].Config.URL" || !strings.Contains(err.Error(), "the plan has no Launcher") {
		t.Fatalf("%v; want a field.Error on Plan.Setups[0].Config.URL saying the plan has no Launcher", err)
	}
	if res, rerr := Run(context.Background(), p, nil); res != nil || rerr == nil || rerr.Error() != err.Error() {
		t.Errorf("Run: %v, %v; want Validate's error and nothing run", res, rerr)
	}
	// Attached, or embedded, it needs none.
	p.Setups[0].Config.URL = uniqueURL(t)
	if err := p.Validate(); err != nil {
		t.Errorf("attached: %v", err)
	}
	for _, c := range []struct {
		l    *fakeLauncher
		plan func(*Plan)
		want string
	}{
		{&fakeLauncher{none: true}, nil, "Plan.Setups[0].Config.URL: sharedmem has no container definition"},
		{&fakeLauncher{checkErr: errors.New("image: no")}, nil, "Plan.Launch: image: no"},
		{&fakeLauncher{secretEnv: "KEY"}, func(p *Plan) { p.Launch.Env = map[string]string{"KEY": "x"} },
			"Plan.Setups[0].Driver: KEY holds the credential the launcher generates for sharedmem"},
	} {
		p := Plan{Source: src, Setups: []Setup{{Driver: "sharedmem"}}, Closed: ptr(quickConfig(1)), Launcher: c.l}
		if c.plan != nil {
			c.plan(&p)
		}
		if err := p.Validate(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v; want %q", err, c.want)
		}
	}
}

// Run starts a setup's engine through the plan's Launcher with the plan's
// options, records what ran, samples it with the engine, removes it at the
// end, and keeps the generated secret out of every message.
func TestRunLaunchesThroughTheLauncher(t *testing.T) {
	l := &fakeLauncher{t: t, closeErr: errors.New("remove container: it held launched-Secret-4242")}
	var mu sync.Mutex
	var logs []string
	obs := event.ObserverFunc(func(e event.Event) {
		if e.Kind == event.Log {
			mu.Lock()
			logs = append(logs, e.Text)
			mu.Unlock()
		}
	})
	p := Plan{Source: runnertest.Text(t, 200, 0.5), Setups: []Setup{{Driver: "sharedmem"}}, Closed: ptr(quickConfig(1)),
		Launcher: l, Launch: launch.Options{CPUs: 1, CPUSet: "0"}}
	res, err := Run(context.Background(), p, obs)
	if err != nil {
		t.Fatal(err)
	}
	er := res.Engines[0]
	if er.Error != "" || er.Mode != "container" || er.Image != "fake/sharedmem:1" || er.ImageDigest != "sha256:feed" ||
		er.CPULimit != 1 || er.CPUSet != "0" || er.DockerVersion != "28.2.2" || er.ContainerEnv["THREADS"] != "1" {
		t.Errorf("the launched engine's record: %+v", er)
	}
	if len(er.Levels) != 1 || er.Levels[0].EngineStats["container_cpu_cores"].Samples == 0 {
		t.Errorf("the launched engine's CPU was not sampled with the level: %+v", er.Levels)
	}
	if len(l.opts) != 1 || l.closed != 1 {
		t.Fatalf("%d launches, %d closes; want one of each", len(l.opts), l.closed)
	}
	if o := l.opts[0]; o.ReadyTimeout != DefaultReadyTimeout || !strings.HasPrefix(o.Run, "run-") || o.Log == nil || o.CPUs != 1 {
		t.Errorf("the launch options: %+v; want the plan's with the defaults and a log", o)
	}
	warnings := strings.Join(er.Warnings.Texts(), "\n")
	if !strings.Contains(warnings, "remove container: it held") || strings.Contains(strings.ToLower(warnings), "secret-4242") {
		t.Errorf("the close's warning, redacted: %q", warnings)
	}
	all := strings.Join(logs, "\n")
	for _, want := range []string{"2 container(s) of earlier searchbench runs", "starting a container (CPU limit 1)", "fake/sharedmem:1 ready at mem://"} {
		if !strings.Contains(all, want) {
			t.Errorf("no log line with %q in\n%s", want, all)
		}
	}
}

// A launch that fails fails its setup; nothing was started to remove.
func TestALaunchThatFailsFailsItsSetup(t *testing.T) {
	l := &fakeLauncher{t: t, launchErr: errors.New("sharedmem: docker is not reachable")}
	p := Plan{Source: runnertest.Text(t, 100, 0.5), Setups: []Setup{{Driver: "sharedmem"}}, Closed: ptr(quickConfig(1)), Launcher: l}
	res, err := Run(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if er := res.Engines[0]; er.Error != "sharedmem: docker is not reachable" || er.Mode != "container" || len(er.Levels) != 0 || l.closed != 0 {
		t.Errorf("%+v, %d closes; want the launch's error and nothing to close", er, l.closed)
	}
	if !res.Partial || res.Reason != "sharedmem: docker is not reachable" {
		t.Errorf("partial %v, reason %q", res.Partial, res.Reason)
	}
}

// runner takes its launcher from the plan, so that a program that attaches
// to running engines does not compile Docker's client: no package runner
// imports is Docker's.
func TestRunnerImportsNoContainerRuntime(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the imports with")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".", "./scenario").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if p := strings.ToLower(pkg); strings.Contains(p, "docker") || strings.Contains(p, "compose") || strings.HasSuffix(p, "engines/container") {
			t.Errorf("runner imports %s", pkg)
		}
	}
}

// A launched engine's generated secret is scrubbed from the warnings sent
// while the run goes on (the log, the live view), not only from the
// result: the launcher makes it after the setup's scrub was first made.
func TestLaunchedSecretIsScrubbedFromLiveWarnings(t *testing.T) {
	l := &fakeLauncher{t: t, urlSuffix: "/leaky"}
	var mu sync.Mutex
	var warned []string
	obs := event.ObserverFunc(func(e event.Event) {
		if e.Kind == event.Warning {
			mu.Lock()
			warned = append(warned, e.Text)
			mu.Unlock()
		}
	})
	p := Plan{Source: runnertest.Text(t, 200, 0.5), Setups: []Setup{{Driver: "sharedmem"}}, Closed: ptr(quickConfig(1)), Launcher: l}
	res, err := Run(context.Background(), p, obs)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(warned, "\n")
	if !strings.Contains(all, "sharedmem: key [redacted] refused") {
		t.Fatalf("no warning quotes the failed searches, scrubbed; sent %q, the result's %q", warned, res.Engines[0].Levels[0].Warnings)
	}
	if strings.Contains(strings.ToLower(all), "secret-4242") {
		t.Errorf("a warning sent shows the launched secret:\n%s", all)
	}
}
