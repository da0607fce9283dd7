package engines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
)

type stubDriver struct{ summary string }

func (d stubDriver) Describe() Description { return Description{Summary: d.summary} }
func (stubDriver) Open(context.Context, Config) (Engine, error) {
	return nil, errors.New("stub driver opens nothing")
}

func TestRegistry(t *testing.T) {
	Register("zz-test", stubDriver{"z"})
	Register("aa-test", stubDriver{"a"})
	names := Drivers()
	ia, iz := -1, -1
	for i, n := range names {
		switch n {
		case "aa-test":
			ia = i
		case "zz-test":
			iz = i
		}
	}
	if ia < 0 || iz < 0 || ia > iz {
		t.Fatalf("Drivers() = %v; want both, sorted", names)
	}
	if d, err := Lookup("aa-test"); err != nil || d.Describe().Summary != "a" {
		t.Fatalf("Lookup: %v", err)
	}
	_, err := Open(context.Background(), "no-such-engine", Config{})
	if err == nil || !strings.Contains(err.Error(), "aa-test") {
		t.Fatalf("Open(unknown) = %v; want an error listing the known engines", err)
	}
	if _, err := Open(context.Background(), "aa-test", Config{}); err == nil || !strings.Contains(err.Error(), "open aa-test") {
		t.Fatalf("Open error not wrapped with the engine's name: %v", err)
	}
	for _, bad := range []func(){
		func() { Register("aa-test", stubDriver{}) },
		func() { Register("", stubDriver{}) },
		func() { Register("a,b", stubDriver{}) },
		func() { Register("nil-test", nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("Register did not panic")
				}
			}()
			bad()
		}()
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

func TestClassify(t *testing.T) {
	cases := map[error]Class{
		nil:                                OK,
		fmt.Errorf("x: %w", ErrNotFound):   NotFound,
		fmt.Errorf("x: %w", ErrOverloaded): Overloaded,
		fmt.Errorf("x: %w", ErrTimeout):    Timeout,
		fmt.Errorf("x: %w", context.DeadlineExceeded): Timeout,
		fmt.Errorf("x: %w", os.ErrDeadlineExceeded):   Timeout,
		&net.OpError{Op: "read", Err: timeoutErr{}}:   Timeout,
		fmt.Errorf("x: %w", context.Canceled):         Canceled,
		errors.New("boom"):                            Other,
	}
	for err, want := range cases {
		if got := Classify(err); got != want {
			t.Errorf("Classify(%v) = %s, want %s", err, got, want)
		}
	}
}

func TestSecretNeverPrints(t *testing.T) {
	cfg := Config{APIKey: "hunter2-key", Password: "pw-hunter2"}
	b, _ := json.Marshal(cfg)
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%q", cfg.APIKey), string(b)} {
		if strings.Contains(s, "hunter2") {
			t.Errorf("secret printed: %s", s)
		}
	}
	if cfg.APIKey.Reveal() != "hunter2-key" {
		t.Error("Reveal lost the secret")
	}
	if Secret("").String() != "" {
		t.Error("an empty secret should print empty, so 'none set' is visible")
	}
}

func TestCheckWriteMode(t *testing.T) {
	both := []Visibility{Acknowledged, Searchable}
	for _, c := range []struct {
		asked   Visibility
		offered []Visibility
		want    Visibility
		err     string
	}{
		{"", both, Acknowledged, ""},
		{Searchable, both, Searchable, ""},
		{"", []Visibility{Searchable}, Searchable, ""},
		{Searchable, []Visibility{Searchable}, Searchable, ""},
		{Acknowledged, []Visibility{Searchable}, "", `drv: write mode "acknowledged" is not offered (drv has one write mode, searchable)`},
		{"eventual", both, "", `drv: write mode "eventual" is not offered (acknowledged or searchable)`},
	} {
		got, err := CheckWriteMode("drv", c.asked, c.offered...)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("CheckWriteMode(%q, %v) = %q, %v; want %q, %s", c.asked, c.offered, got, err, c.want, c.err)
		}
	}
}

// The registry's check of a driver without a ConfigChecker uses the same
// reader and write-mode check as the drivers.
func TestCheckConfigFallback(t *testing.T) {
	Register("plain-test", stubDriver{"plain"})
	if err := CheckConfig("plain-test", Config{}); err != nil {
		t.Fatal(err)
	}
	err := CheckConfig("plain-test", Config{Options: map[string]string{"pool": "3"}})
	if err == nil || err.Error() != `plain-test: unknown option "pool" (plain-test takes no options)` {
		t.Fatalf("option: %v", err)
	}
	// stubDriver describes no visibility: every asked mode is refused.
	if err := CheckConfig("plain-test", Config{WriteMode: Searchable}); err == nil || !strings.Contains(err.Error(), "is not offered") {
		t.Fatalf("write mode: %v", err)
	}
}

// A schema refusal reads as the driver's other errors do, and gives its
// reason alone to a caller that names the driver itself.
func TestSchemaError(t *testing.T) {
	err := fmt.Errorf("check: %w", RefuseSchema("drv", "field %s: %w", "x", ErrUnsupported))
	var se *SchemaError
	if !errors.As(err, &se) || se.Driver != "drv" || se.Err.Error() != "field x: not supported by this engine" {
		t.Fatalf("%v: %#v", err, se)
	}
	if err.Error() != "check: drv: field x: not supported by this engine" || !errors.Is(err, ErrUnsupported) {
		t.Errorf("%v: want the driver named first and the class kept", err)
	}
}
