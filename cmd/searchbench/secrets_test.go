package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/amgixnow/amgixfake"
	"github.com/searchbench/searchbench/engines/container"
	"github.com/searchbench/searchbench/engines/elasticsearch/esfake"
	"github.com/searchbench/searchbench/engines/meilisearch/meilifake"
	"github.com/searchbench/searchbench/engines/typesense/typesensefake"
	"github.com/searchbench/searchbench/engines/valkey/valkeyfake"
)

// noSecret fails the test if secret appears in the run's stdout, its
// stderr, or any file it wrote: result.json, tables.md, figures.csv,
// report.html, the charts.
func noSecret(t *testing.T, secret, stdout, stderr, dir string) {
	t.Helper()
	if len(secret) < 8 {
		t.Fatalf("secret %q is too short to grep for", secret)
	}
	for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if strings.Contains(out, secret) {
			t.Errorf("%s shows the secret:\n%s", name, out)
		}
	}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the secret", path)
		}
		return nil
	})
	if err != nil || files < 4 {
		t.Errorf("%d files written (%v); want result.json, tables.md, figures.csv, report.html at least", files, err)
	}
}

// quickRun is a short run of engine at url; the credential comes from
// extra (a flag) or the environment.
func quickRun(t *testing.T, engine, url string, env map[string]string, extra ...string) (code int, stdout, stderr, dir string) {
	t.Helper()
	dir = t.TempDir()
	args := append([]string{"run", "--engine", engine, "--url", url, "--ids", "300", "--users", "2", "--spawn-rate", "1000",
		"--settle", "0s", "--measure", "300ms", "--timeout", "5s", "--relevance-queries", "5", "--out", dir}, extra...)
	code, stdout, stderr = runEnv(t, context.Background(), env, args...)
	return code, stdout, stderr, dir
}

// Every driver that takes a credential, given a distinctive one: by flag,
// by SEARCHBENCH_PASSWORD or SEARCHBENCH_API_KEY, inside the URL, and wrong
// (the failure's message is where a driver would most likely quote it).
// No output of any of these runs shows it.
func TestSecretsNeverReachOutputs(t *testing.T) {
	t.Parallel()
	const secret = "Sb-s3cret-Zq7Kx9Tq4w"
	const wrong = "Sb-wr0ng-Vb8Lm2Pn6y"
	type attempt struct {
		how   string
		url   string
		flags []string
		env   [2]string
		ok    bool
	}
	// The API key's ways in, for the engines that take one.
	keyAttempts := func(url string) []attempt {
		return []attempt{
			{"flag", url, []string{"--api-key", secret}, [2]string{}, true},
			{"environment", url, nil, [2]string{"SEARCHBENCH_API_KEY", secret}, true},
			{"wrong", url, []string{"--api-key", wrong}, [2]string{}, false},
		}
	}
	cases := []struct {
		engine string
		start  func(t *testing.T) []attempt
	}{
		{"typesense", func(t *testing.T) []attempt {
			f := typesensefake.New(secret)
			t.Cleanup(f.Close)
			return keyAttempts(f.URL)
		}},
		{"meilisearch", func(t *testing.T) []attempt {
			f := meilifake.New(meilifake.Options{MasterKey: secret})
			t.Cleanup(f.Close)
			return keyAttempts(f.URL)
		}},
		{"amgix-now", func(t *testing.T) []attempt {
			f := amgixfake.New(amgixfake.APIKey(secret))
			t.Cleanup(f.Close)
			return keyAttempts(f.URL)
		}},
		{"elasticsearch", func(t *testing.T) []attempt {
			f := esfake.New(esfake.Options{APIKey: secret})
			t.Cleanup(f.Close)
			return keyAttempts(f.URL())
		}},
		{"elasticsearch (basic auth)", func(t *testing.T) []attempt {
			f := esfake.New(esfake.Options{Username: "sb-basic-user-42", Password: secret})
			t.Cleanup(f.Close)
			return []attempt{
				{"flag", f.URL(), []string{"--username", "sb-basic-user-42", "--password", secret}, [2]string{}, true},
				{"environment", f.URL(), []string{"--username", "sb-basic-user-42"}, [2]string{"SEARCHBENCH_PASSWORD", secret}, true},
				{"wrong", f.URL(), []string{"--username", "sb-basic-user-42", "--password", wrong}, [2]string{}, false},
			}
		}},
		{"valkey", func(t *testing.T) []attempt {
			f, err := valkeyfake.New(valkeyfake.Options{Password: secret})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return []attempt{
				{"flag", f.URL(), []string{"--password", secret}, [2]string{}, true},
				{"environment", f.URL(), nil, [2]string{"SEARCHBENCH_PASSWORD", secret}, true},
				{"URL", "redis://default:" + secret + "@" + f.Addr(), nil, [2]string{}, true},
				{"wrong", f.URL(), []string{"--password", wrong}, [2]string{}, false},
				{"wrong in the URL", "redis://default:" + wrong + "@" + f.Addr(), nil, [2]string{}, false},
			}
		}},
		{"postgres", func(t *testing.T) []attempt {
			c := startPostgres(t)
			// The launcher's password is random hex: distinctive enough.
			inURL := strings.Replace(c.URL, "postgres://postgres@", "postgres://postgres:"+c.Secret+"@", 1)
			wrongURL := strings.Replace(c.URL, "postgres://postgres@", "postgres://postgres:"+wrong+"@", 1)
			return []attempt{
				{"flag", c.URL, []string{"--password", c.Secret}, [2]string{}, true},
				{"environment", c.URL, nil, [2]string{"SEARCHBENCH_PASSWORD", c.Secret}, true},
				{"URL", inURL, nil, [2]string{}, true},
				{"wrong", c.URL, []string{"--password", wrong}, [2]string{}, false},
				{"wrong in the URL", wrongURL, nil, [2]string{}, false},
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			for i, a := range c.start(t) {
				t.Run(a.how, func(t *testing.T) {
					if c.engine != "postgres" {
						// The fakes' attempts at once, each on a fake of its
						// own (two runs on one server would share its index);
						// the container is one for its attempts, which take
						// turns.
						t.Parallel()
						a = c.start(t)[i]
					}
					var env map[string]string
					if a.env[0] != "" {
						env = map[string]string{a.env[0]: a.env[1]}
					}
					driver, _, _ := strings.Cut(c.engine, " ") // "elasticsearch (basic auth)"
					code, stdout, stderr, dir := quickRun(t, driver, a.url, env, a.flags...)
					if (code == exitOK) != a.ok {
						t.Fatalf("exit %d; want success %v\n%s", code, a.ok, stderr)
					}
					for _, s := range []string{secret, wrong, a.env[1]} {
						if s != "" {
							noSecret(t, s, stdout, stderr, dir)
						}
					}
					for i, f := range a.flags {
						// A user name is not a secret: Elasticsearch's own
						// errors name the user that failed to log in.
						if !strings.HasPrefix(f, "--") && (i == 0 || a.flags[i-1] != "--username") {
							noSecret(t, f, stdout, stderr, dir)
						}
					}
				})
			}
		})
	}
}

// The launcher makes each container's password; it reaches neither the
// log, nor the result's record of the container's environment, nor any
// report.
func TestLaunchedContainersSecretStaysHidden(t *testing.T) {
	t.Parallel()
	needPostgres(t)
	dir := t.TempDir()
	name := runName(dir)
	var secret string
	var w watched
	w.on("ready at", func() {
		pool, err := container.Pool()
		if err != nil {
			t.Error(err)
			return
		}
		st, err := pool.Client.InspectContainer(runContainer(t, name))
		if err != nil {
			t.Error(err)
			return
		}
		for _, kv := range st.Config.Env {
			if v, ok := strings.CutPrefix(kv, "POSTGRES_PASSWORD="); ok {
				secret = v
			}
		}
	})
	code, stdout, stderr := runWatched(t, context.Background(), &w, pgArgs(dir, "--users", "2", "--measure", "300ms")...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if len(secret) < 16 {
		t.Fatalf("the container's password %q was not found", secret)
	}
	noSecret(t, secret, stdout, stderr, dir)
	if env := readResult(t, dir).Engines[0].ContainerEnv; len(env) == 0 || env["POSTGRES_PASSWORD"] != "" {
		t.Errorf("container env %v; want its settings without the password", env)
	}
}

// leakyDriver opens an engine whose errors quote the password it was given,
// as a careless driver or library might: a run's record quotes those errors
// (failure examples, warnings), so the run must redact them itself.
type leakyDriver struct{}

func (leakyDriver) Describe() engines.Description {
	return engines.Description{Summary: "test engine whose errors quote its password", Visibility: engines.Searchable}
}

func (leakyDriver) Open(_ context.Context, cfg engines.Config) (engines.Engine, error) {
	return &leakyEngine{password: cfg.Password.Reveal()}, nil
}

type leakyEngine struct{ password string }

func (l *leakyEngine) err() error {
	return fmt.Errorf("leaky: login as postgres:%s refused: %w", l.password, engines.ErrOverloaded)
}
func (l *leakyEngine) Create(context.Context, engines.Schema) error   { return nil }
func (l *leakyEngine) Upsert(context.Context, engines.Document) error { return l.err() }
func (l *leakyEngine) Delete(context.Context, string) error           { return l.err() }
func (l *leakyEngine) Search(context.Context, engines.Query) (engines.Hits, error) {
	return engines.Hits{}, l.err()
}
func (l *leakyEngine) Close() error { return fmt.Errorf("leaky: close %s", l.password) }

func init() { engines.Register("leaky-test", leakyDriver{}) }

func TestRunRedactsSecretsThatDriversQuote(t *testing.T) {
	t.Parallel()
	const secret = "Sb-l3aky-Qm5Rt8Wz1x"
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), quick(dir, "--engine", "leaky-test", "--prepopulate", "0",
		"--url", "http://127.0.0.1:1", "--password", secret)...)
	if code != exitFailed {
		t.Fatalf("exit %d; want %d for a run whose every call failed\n%s", code, exitFailed, stderr)
	}
	if !strings.Contains(stdout, "leaky: login as postgres:[redacted] refused") {
		t.Errorf("the failures' message is not shown, redacted:\n%s", stdout)
	}
	noSecret(t, secret, stdout, stderr, dir)
}

// noSecretRun fails the test if any run of minRun characters of secret, in
// any case, appears in the run's stdout, its stderr or any file it wrote.
func noSecretRun(t *testing.T, secret, stdout, stderr, dir string) {
	t.Helper()
	const minRun = 6 // as runner's scrub
	check := func(name string, text []byte) {
		low := bytes.ToLower(text)
		s := strings.ToLower(secret)
		for i := 0; i+minRun <= len(s); i++ {
			if bytes.Contains(low, []byte(s[i:i+minRun])) {
				t.Errorf("%s holds %q, a part of the secret", name, s[i:i+minRun])
				return
			}
		}
	}
	check("stdout", []byte(stdout))
	check("stderr", []byte(stderr))
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil {
			check(path, b)
		}
		return err
	})
	if err != nil {
		t.Error(err)
	}
}

// quotingProxy forwards to backend, but answers every second search with a
// 500 whose message quotes the key as a careless server or proxy might: a
// part of it, in another case, split in two. It counts those answers. (A
// short run makes few searches, the first five of them relevance checks:
// every second one fails both kinds.)
func quotingProxy(t *testing.T, backend, key string) (string, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	fwd := httputil.NewSingleHostReverseProxy(u)
	var searches, quoted atomic.Int64
	msg := fmt.Sprintf("upstream refused key %s…; as sent: %s; checked %s…%s; parts %s / %s",
		key[:10], strings.ToLower(key), strings.ToUpper(key[3:15]), key[12:], key[:9], key[9:])
	body, err := json.Marshal(map[string]string{"message": msg, "code": "internal"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/search") && searches.Add(1)%2 == 0 {
			quoted.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			w.Write(body)
			return
		}
		fwd.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &quoted
}

// A server error that quotes a part of the API key, or the key in another
// case, reaches neither the printed tables and log nor any file: every run
// of six characters of it is scrubbed. The failures are still recorded.
func TestPartlyQuotedSecretsNeverReachOutputs(t *testing.T) {
	t.Parallel()
	const key = "Sb-p4rt1al-Kq8Zw3Xy6v"
	for _, c := range []struct {
		engine string
		start  func(t *testing.T) string
	}{
		{"typesense", func(t *testing.T) string {
			f := typesensefake.New(key)
			t.Cleanup(f.Close)
			return f.URL
		}},
		{"meilisearch", func(t *testing.T) string {
			f := meilifake.New(meilifake.Options{MasterKey: key})
			t.Cleanup(f.Close)
			return f.URL
		}},
	} {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			proxy, quoted := quotingProxy(t, c.start(t), key)
			// A second's window: enough searches in it, on a busy machine
			// under the race detector, that some of the failing ones fall
			// inside the window rather than before it opens or after it ends.
			code, stdout, stderr, dir := quickRun(t, c.engine, proxy, nil, "--api-key", key, "--measure", "1s")
			if quoted.Load() == 0 || code != exitFailed {
				t.Fatalf("exit %d after %d quoting answers; want failed calls (exit 1)\n%s", code, quoted.Load(), stderr)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "result.json")); err != nil || !bytes.Contains(b, []byte("upstream refused key [redacted]")) {
				t.Errorf("result.json does not record the failures, scrubbed (%v)", err)
			}
			noSecretRun(t, key, stdout, stderr, dir)
		})
	}
}

// echoingProxy forwards to backend, but answers every second search with a
// 500 whose message quotes the credential the request carried, as a
// careless server or proxy might: the basic-auth token whole, lower-cased,
// without its padding, split by a space, its tail, URL-encoded; the
// password as it is, URL-encoded and in base64. It returns its URL with
// userinfo (nil: none) and a count of those answers.
func echoingProxy(t *testing.T, backend string, userinfo *url.Userinfo) (string, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	fwd := httputil.NewSingleHostReverseProxy(u)
	var searches, quoted atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, basic := r.BasicAuth()
		if !basic || !strings.HasSuffix(r.URL.Path, "search") || searches.Add(1)%2 != 0 {
			fwd.ServeHTTP(w, r)
			return
		}
		quoted.Add(1)
		token := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
		msg := strings.Join([]string{"upstream refused credentials, echoed:", token, strings.ToLower(token),
			strings.TrimRight(token, "="), token[:11] + " " + token[11:], token[len(token)-8:], url.QueryEscape(token),
			pass, url.QueryEscape(pass), base64.StdEncoding.EncodeToString([]byte(pass))}, " ")
		body, err := json.Marshal(map[string]any{
			"message": msg, "code": "internal", "type": "internal", // Meilisearch, Typesense
			"detail": msg, // Amgix
			"error":  map[string]any{"type": "exception", "reason": msg},
			"status": http.StatusInternalServerError, // Elasticsearch
		})
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	p, _ := url.Parse(srv.URL)
	p.User = userinfo
	return p.String(), &quoted
}

// A server that echoes the basic-auth header it was sent — a --url's
// userinfo, which Meilisearch, Amgix Now and Typesense send as one, or
// Elasticsearch's --username and --password — in any encoding, case or
// piece, shows no run of six characters of it, nor of the password, in
// stdout, stderr, result.json, tables.md, report.html or any other file.
// The failures are still recorded.
func TestEchoedBasicAuthSecretsNeverReachOutputs(t *testing.T) {
	t.Parallel()
	const user, pass = "sb-user", "Kx9/Qw7?zA+b"
	const key = "Sb-p4rt1al-Kq8Zw3Xy6v" // Typesense's, which wants one besides
	token := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	for _, c := range []struct {
		engine string
		start  func(t *testing.T) (backend string, flags []string)
		inURL  bool
	}{
		{"meilisearch", func(t *testing.T) (string, []string) {
			f := meilifake.New(meilifake.Options{})
			t.Cleanup(f.Close)
			return f.URL, nil
		}, true},
		{"amgix-now", func(t *testing.T) (string, []string) {
			f := amgixfake.New()
			t.Cleanup(f.Close)
			return f.URL, nil
		}, true},
		{"typesense", func(t *testing.T) (string, []string) {
			f := typesensefake.New(key)
			t.Cleanup(f.Close)
			return f.URL, []string{"--api-key", key}
		}, true},
		{"elasticsearch", func(t *testing.T) (string, []string) {
			f := esfake.New(esfake.Options{Username: user, Password: pass})
			t.Cleanup(f.Close)
			return f.URL(), []string{"--username", user, "--password", pass}
		}, false},
	} {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			backend, flags := c.start(t)
			var userinfo *url.Userinfo
			if c.inURL {
				userinfo = url.UserPassword(user, pass)
			}
			proxy, quoted := echoingProxy(t, backend, userinfo)
			code, stdout, stderr, dir := quickRun(t, c.engine, proxy, nil, append(flags, "--measure", "1s")...)
			if quoted.Load() == 0 || code != exitFailed {
				t.Fatalf("exit %d after %d echoing answers; want failed calls (exit 1)\n%s", code, quoted.Load(), stderr)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "result.json")); err != nil || !bytes.Contains(b, []byte("upstream refused credentials, echoed: [redacted]")) {
				t.Errorf("result.json does not record the failures, scrubbed (%v)", err)
			}
			for _, s := range []string{token, url.QueryEscape(token), token[:11], token[11:], pass, url.QueryEscape(pass),
				base64.StdEncoding.EncodeToString([]byte(pass))} {
				noSecretRun(t, s, stdout, stderr, dir)
			}
		})
	}
}
