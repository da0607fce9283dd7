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

// Redaction removes every secret from the message and keeps the class.
func TestRedact(t *testing.T) {
	base := fmt.Errorf("login as bob:hunter2 with key k-123 failed: %w", ErrOverloaded)
	cfg := Config{URL: "postgres://bob:hunter2@db/x", APIKey: "k-123"}
	err := Redact(base, cfg.Secrets()...)
	if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "k-123") || !strings.Contains(err.Error(), "bob:[redacted]") {
		t.Errorf("Redact = %q; want both secrets gone", err)
	}
	if !errors.Is(err, ErrOverloaded) || Classify(err) != Overloaded {
		t.Errorf("Redact lost the error's class: %v", Classify(err))
	}
	kv := Config{URL: "host=db user=bob password='hunter2' dbname=x"}
	if err := Redact(base, kv.Secrets()...); strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Redact(key=value connection string) = %q", err)
	}
	if got := SafeURL(kv.URL); got != "(connection string)" {
		t.Errorf("SafeURL(key=value) = %q", got)
	}
	if got := SafeURL(cfg.URL); strings.Contains(got, "hunter2") || !strings.Contains(got, "db/x") {
		t.Errorf("SafeURL(%q) = %q", cfg.URL, got)
	}
	if Redact(base) != base || Redact(nil, "x") != nil {
		t.Error("Redact without secrets (or of nil) must return its argument")
	}
}

// A key a server echoed where Clip cut its answer leaves its start before
// the clip's mark; redaction after the clip removes that start too, and
// leaves a clipped message that holds no secret alone.
func TestRedactClippedSecret(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	for _, keep := range []int{3, 10, len(key) - 1} {
		body := strings.Repeat("x", MaxQuoted-keep) + key + " and more"
		msg := RedactString(Clip(body), key)
		if strings.Contains(msg, key[:3]) || !strings.Contains(msg, redacted+clipMark) {
			t.Errorf("keeping %d bytes of the key: %q; want its start redacted before the mark", keep, msg)
		}
	}
	plain := Clip(strings.Repeat("y", MaxQuoted+10))
	if got := RedactString(plain, key); got != plain {
		t.Errorf("a clipped message without the key changed: %q", got)
	}
}

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
