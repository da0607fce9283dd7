package launch_test

import (
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines/launch"
)

// Every option that needs no container runtime to check is checked here,
// in the setting's words; an image's name is the launcher's to judge.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		o    launch.Options
		want string
	}{
		{launch.Options{CPUs: -1, ReadyTimeout: 1}, "cpus: -1 must be ≥ 0"},
		{launch.Options{CPUs: 1e6, ReadyTimeout: 1}, "cpus: 1e+06 is more than this host's"},
		{launch.Options{MemoryBytes: -1, ReadyTimeout: 1}, "memory: -1 must be ≥ 0"},
		{launch.Options{MemoryBytes: launch.MinMemory - 1, ReadyTimeout: 1}, "memory: 6291455 bytes is below Docker's minimum"},
		{launch.Options{CPUSet: "x", ReadyTimeout: 1}, `cpuset: "x" is not a list`},
		{launch.Options{CPUSet: "0-", ReadyTimeout: 1}, `cpuset: "0-" is not a list`},
		{launch.Options{CPUSet: "1-0", ReadyTimeout: 1}, `cpuset: "1-0" is not a list`},
		{launch.Options{CPUSet: "0,,1", ReadyTimeout: 1}, `cpuset: "0,,1" is not a list`},
		{launch.Options{CPUSet: "100000", ReadyTimeout: 1}, `cpuset: "100000" names CPU 100000`},
		{launch.Options{ReadyTimeout: 0}, "ready-timeout: 0s must be > 0"},
		{launch.Options{ReadyTimeout: 1, Env: map[string]string{"A=B": "x"}}, `container-env: "A=B" is not a variable name`},
	} {
		if err := c.o.Validate(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q", c.o, err, c.want)
		}
	}
	if err := (launch.Options{CPUSet: "0", ReadyTimeout: 1, Image: "any name: the launcher checks it"}).Validate(); err != nil {
		t.Errorf("valid options: %v", err)
	}
}

func TestGiven(t *testing.T) {
	if g := (launch.Options{ReadyTimeout: 1, Run: "r", NoBuild: true}).Given(); g != "" {
		t.Errorf("no container setting given: %q", g)
	}
	o := launch.Options{CPUs: 1, CPUSet: "0", MemoryBytes: 1 << 30, Image: "x", Env: map[string]string{"A": "b"}}
	if g := o.Given(); g != "cpus, cpuset, memory, image, container-env" {
		t.Errorf("Given = %q", g)
	}
}
