package runner

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/searchbench/searchbench/engines"
	_ "github.com/searchbench/searchbench/engines/all" // every driver, registered
	"github.com/searchbench/searchbench/runner/result"
)

// sentCredential is what a driver sent a server: a basic-auth user and
// password, or a key or password alone (user empty, basic false).
type sentCredential struct {
	basic      bool
	user, pass string
}

// encoded is the base64 a server or proxy would quote: the basic-auth
// header's token, or the key's base64.
func (c sentCredential) encoded() string {
	if c.basic {
		return base64.StdEncoding.EncodeToString([]byte(c.user + ":" + c.pass))
	}
	return base64.StdEncoding.EncodeToString([]byte(c.pass))
}

func (c sentCredential) bytes() []byte {
	if c.basic {
		return []byte(c.user + ":" + c.pass)
	}
	return []byte(c.pass)
}

// echoForms are the ways a server or proxy echoes a credential it was sent.
var echoForms = []struct {
	name string
	of   func(sentCredential) string
}{
	{"whole base64", sentCredential.encoded},
	{"no padding", func(c sentCredential) string { return base64.RawStdEncoding.EncodeToString(c.bytes()) }},
	{"split by a space", func(c sentCredential) string { s := c.encoded(); return s[:len(s)/2] + " " + s[len(s)/2:] }},
	{"split in fives", func(c sentCredential) string {
		s := c.encoded()
		var b strings.Builder
		for i := 0; i < len(s); i += 5 {
			b.WriteString(s[i:min(i+5, len(s))] + " ")
		}
		return b.String()
	}},
	{"tail only", func(c sentCredential) string { s := c.encoded(); return s[len(s)-10:] }},
	{"lower-cased", func(c sentCredential) string { return strings.ToLower(c.encoded()) }},
	{"URL-safe base64", func(c sentCredential) string { return base64.URLEncoding.EncodeToString(c.bytes()) }},
	{"URL-encoded", func(c sentCredential) string { return url.QueryEscape(c.encoded()) }},
	{"raw password", func(c sentCredential) string { return c.pass }},
	{"URL-encoded password", func(c sentCredential) string { return url.QueryEscape(c.pass) }},
	{"password's base64", func(c sentCredential) string { return base64.StdEncoding.EncodeToString([]byte(c.pass)) }},
	{"upper-cased password", func(c sentCredential) string { return strings.ToUpper(c.pass) }},
}

// echoMark precedes the echo in a server's message: an error without it
// did not quote the server, and would prove nothing.
const echoMark = "credentials refused, echoed:"

// echoHTTP is an HTTP server that refuses every request with a 401 whose
// body quotes, in the fields each driver reads, the credential the request
// carried as echo writes it.
func echoHTTP(t *testing.T, echo func(sentCredential) string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c sentCredential
		if u, p, ok := r.BasicAuth(); ok {
			c = sentCredential{basic: true, user: u, pass: p}
		} else if a := r.Header.Get("Authorization"); a != "" {
			_, c.pass, _ = strings.Cut(a, " ")
		} else {
			c.pass = r.Header.Get("X-TYPESENSE-API-KEY")
		}
		msg := "no credentials came"
		if c.pass != "" {
			msg = echoMark + " " + echo(c) + " (end)"
		}
		body, _ := json.Marshal(map[string]any{
			"message": msg, "code": "invalid_api_key", "type": "auth", // Meilisearch, Typesense
			"detail": msg, // Amgix
			"error":  map[string]any{"type": "security_exception", "reason": msg},
			"status": http.StatusUnauthorized, // Elasticsearch
		})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// echoRESP is a Valkey server that refuses every command with an error
// quoting the password of the AUTH (or HELLO … AUTH) it was sent.
func echoRESP(t *testing.T, echo func(sentCredential) string) string {
	return serveTCP(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		var sent sentCredential
		for {
			args, err := readRESP(r)
			if err != nil {
				return
			}
			for i, a := range args {
				if strings.EqualFold(a, "AUTH") && i+1 < len(args) {
					if strings.EqualFold(args[0], "HELLO") && i+2 < len(args) {
						sent.pass = args[i+2]
					} else {
						sent.pass = args[len(args)-1]
					}
				}
			}
			msg := "NOAUTH no credentials came"
			if sent.pass != "" {
				msg = "WRONGPASS " + echoMark + " " + echo(sent) + " (end)"
			}
			if _, err := io.WriteString(c, "-"+strings.ReplaceAll(msg, "\r\n", " ")+"\r\n"); err != nil {
				return
			}
		}
	})
}

// readRESP reads one command: an array of bulk strings.
func readRESP(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "*") {
		return nil, fmt.Errorf("not an array: %q (%v)", line, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		return nil, err
	}
	args := make([]string, n)
	for i := range args {
		if line, err = r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "$") {
			return nil, fmt.Errorf("not a bulk string: %q (%v)", line, err)
		}
		size, err := strconv.Atoi(strings.TrimSpace(line[1:]))
		if err != nil {
			return nil, err
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		args[i] = string(b[:size])
	}
	return args, nil
}

// echoPostgres is a PostgreSQL server that asks for the password in
// cleartext and refuses it with an error that quotes it.
func echoPostgres(t *testing.T, echo func(sentCredential) string) string {
	return serveTCP(t, func(c net.Conn) {
		be := pgproto3.NewBackend(c, c)
		m, err := be.ReceiveStartupMessage()
		for err == nil {
			if _, ok := m.(*pgproto3.StartupMessage); ok {
				break
			}
			if _, err = c.Write([]byte("N")); err == nil { // no TLS, no GSS encryption
				m, err = be.ReceiveStartupMessage()
			}
		}
		if err != nil {
			return
		}
		be.Send(&pgproto3.AuthenticationCleartextPassword{})
		if be.Flush() != nil || be.SetAuthType(pgproto3.AuthTypeCleartextPassword) != nil {
			return
		}
		m, err = be.Receive()
		pm, ok := m.(*pgproto3.PasswordMessage)
		if err != nil || !ok {
			return
		}
		be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", Code: "28P01",
			Message: echoMark + " " + echo(sentCredential{pass: pm.Password}) + " (end)"})
		be.Flush()
	})
}

// serveTCP serves each connection to a local listener with serve, and
// returns the listener's address.
func serveTCP(t *testing.T, serve func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				serve(c)
			}()
		}
	}()
	return ln.Addr().String()
}

// withUser is raw (scheme://host…) with user and password as its userinfo.
func withUser(raw, user, pass string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	u.User = url.UserPassword(user, pass)
	return u.String()
}

// compact is s lower-cased without whitespace: a quote split by spaces or
// in another case is still the secret.
func compact(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// leakRun is the shortest run of a secret's characters that must not be
// left: six, as the README says.
const leakRun = 6

// leakedRun is the first run of leakRun characters of secret that msg
// holds, in any case, across whitespace; "" when none.
func leakedRun(msg, secret string) string {
	m, s := []rune(compact(msg)), []rune(compact(secret))
	for i := 0; i+leakRun <= len(s); i++ {
		if strings.Contains(string(m), string(s[i:i+leakRun])) {
			return string(s[i : i+leakRun])
		}
	}
	return ""
}

// Every driver that sends a credential, against a server that echoes it
// back in its error in any of the forms a server or proxy may use: the
// driver's error, as a run records it (RedactMessages with the
// configuration's secrets), holds no run of six characters of the echo, nor
// of the password.
func TestEchoedCredentialsAreScrubbedFromEveryDriversErrors(t *testing.T) {
	const user = "sb-user"
	const secret = "Sb+s3cr/t?Kx9~Qw7%zA" // '/' and '?' to escape, a basic token with '/' and padding
	type start func(t *testing.T, echo func(sentCredential) string) engines.Config
	httpKey := func(t *testing.T, echo func(sentCredential) string) engines.Config {
		return engines.Config{URL: echoHTTP(t, echo), APIKey: engines.Secret(secret)}
	}
	httpURL := func(t *testing.T, echo func(sentCredential) string) engines.Config {
		return engines.Config{URL: withUser(echoHTTP(t, echo), user, secret)}
	}
	cases := []struct {
		driver, how string
		start       start
	}{
		{"elasticsearch", "username and password", func(t *testing.T, echo func(sentCredential) string) engines.Config {
			return engines.Config{URL: echoHTTP(t, echo), Username: user, Password: engines.Secret(secret)}
		}},
		{"elasticsearch", "API key", httpKey},
		{"meilisearch", "API key", httpKey},
		{"meilisearch", "URL", httpURL},
		{"amgix-now", "API key", httpKey},
		{"amgix-now", "URL", httpURL},
		{"typesense", "API key", httpKey},
		{"typesense", "URL", func(t *testing.T, echo func(sentCredential) string) engines.Config {
			cfg := httpURL(t, echo)
			cfg.APIKey = "Tk9Lm2Qp7Rx4Wv" // sent, but not the credential echoed
			return cfg
		}},
		{"valkey", "password", func(t *testing.T, echo func(sentCredential) string) engines.Config {
			return engines.Config{URL: "redis://" + echoRESP(t, echo), Password: engines.Secret(secret)}
		}},
		{"valkey", "URL", func(t *testing.T, echo func(sentCredential) string) engines.Config {
			return engines.Config{URL: withUser("redis://"+echoRESP(t, echo), user, secret)}
		}},
		{"postgres", "password", func(t *testing.T, echo func(sentCredential) string) engines.Config {
			return engines.Config{URL: "postgres://" + user + "@" + echoPostgres(t, echo) + "/db?sslmode=disable",
				Password: engines.Secret(secret)}
		}},
		{"postgres", "URL", func(t *testing.T, echo func(sentCredential) string) engines.Config {
			return engines.Config{URL: withUser("postgres://"+echoPostgres(t, echo)+"/db?sslmode=disable", user, secret)}
		}},
	}
	for _, c := range cases {
		t.Run(c.driver+"/"+c.how, func(t *testing.T) {
			d, err := engines.Lookup(c.driver)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range echoForms {
				t.Run(f.name, func(t *testing.T) {
					echoed := make(chan string, 100)
					cfg := c.start(t, func(s sentCredential) string {
						e := f.of(s)
						select {
						case echoed <- e:
						default:
						}
						return e
					})
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					e, err := d.Open(ctx, cfg)
					if err == nil {
						e.Close()
						t.Fatal("Open succeeded against a server that refuses every request")
					}
					if !strings.Contains(err.Error(), echoMark) {
						t.Fatalf("the error does not quote the server's message, so this tests nothing: %v", err)
					}
					run := result.EngineRun{Error: err.Error()}
					RedactMessages(&run, cfg.Secrets())
					if !strings.Contains(run.Error, echoMark) {
						t.Errorf("the scrub took the server's words too: %s", run.Error)
					}
					for _, leak := range []string{<-echoed, secret} {
						if r := leakedRun(run.Error, leak); r != "" {
							t.Errorf("%q, a run of %q, is left in\n%s", r, leak, run.Error)
						}
					}
				})
			}
		})
	}
}
