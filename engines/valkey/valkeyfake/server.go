// Package valkeyfake is a wire-contract fake of Valkey with the
// valkey-search 1.2.1 module, not a search engine: it exists to test the
// searchbench Valkey driver, and models only the requests that driver sends
// (engines/valkey/wire.go, engine.go), refusing others by name. It is
// written from valkey-search's documentation and parser sources
// (docs/commands/ft.*.md; src/commands/ft_create_parser.cc,
// ft_search_parser.cc, filter_parser.cc; src/index_schema.cc) and held to the
// module by TestFakeHeldToModule and TestRepliesAsModule.
//
// It speaks RESP3 (HELLO 3 [AUTH]) and implements PING, HELLO, CLIENT
// SETINFO, INFO, CONFIG GET|SET, HSET, HGETALL, DEL, UNLINK, SCAN,
// FT.CREATE, FT.DROPINDEX, FT.SEARCH, FT.INFO and FT._LIST. Indexes are
// real: each sees the keys under its prefix, every hash there is one of its
// documents; TEXT is cut at the default punctuation, lowercased, stripped of
// the 33 Lucene stop words unless NOSTOPWORDS, and a query word also matches
// indexed words with its Snowball English stem (the module's libstemmer);
// TAG is exact; NUMERIC takes ranges; HNSW is exact KNN by the index's
// DISTANCE_METRIC (COSINE, L2 or IP, as the module's spaces compute them:
// knn.nearest). Non-vector
// results come in no particular order (a hash of the key), as the module does
// not rank them. FT.INFO and the ingest counters follow the module's
// bookkeeping (cmdFtInfo, mutateLocked, ingest).
//
// Writes behave as valkey-search's may: the reply to HSET/DEL is held until
// the first index whose prefix matches the key has applied the mutation
// (under one index, until it has; under several the others follow: held),
// on a pool of writer workers (search.writer-threads); Options.IndexDelay slows
// each application so that tests can watch the queues and counters move.
//
// Injected faults (Inject, ClearFaults) go through engines/enginetest/fakekit.
package valkeyfake

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// The versions the fake reports: those it is held to, Debian sid's
// valkey-server 9.1.2 with the valkey-search 1.2.1 module.
const (
	ValkeyVersion = "9.1.2"
	SearchVersion = "1.2.1"
	// searchVersionInt is vmsdk::ValkeyVersion's (major<<16)|(minor<<8)|patch,
	// as INFO modules shows it (src/version.h; seen on the module).
	searchVersionInt = 1<<16 | 2<<8 | 1
)

// Options configure a fake.
type Options struct {
	// Password, when set, is the default user's: HELLO … AUTH must give it.
	Password string
	// WriterThreads is search.writer-threads' starting value; 0 means 2.
	WriterThreads int
	// IndexDelay is added to every index's application of a mutation.
	IndexDelay time.Duration
}

// Server is a running fake, listening on 127.0.0.1.
type Server struct {
	opts Options
	ln   net.Listener

	mu      sync.Mutex
	hashes  map[string]map[string]string
	indexes map[string]*index
	config  map[string]string

	writers      *limiter
	writerQueue  atomic.Int64 // mutations waiting for a writer
	ingestKeys   atomic.Int64 // one per index a written hash is routed to
	ingestFields [4]atomic.Int64
	blocked      atomic.Int64 // writing clients waiting for their indexes
	backfillKeys atomic.Int64 // keys the backfills ingested
	nextID       atomic.Int64

	faults fakekit.Faults
	knob   fakekit.Knob // the last EF_RUNTIME a KNN clause carried

	wg     sync.WaitGroup
	connMu sync.Mutex
	conns  map[net.Conn]struct{}
	closed atomic.Bool
	stop   chan struct{} // closed by Close: ends the cron
}

// New starts a fake on a free 127.0.0.1 port below 32768.
func New(opts Options) (*Server, error) {
	ln, err := Listen()
	if err != nil {
		return nil, err
	}
	if opts.WriterThreads <= 0 {
		opts.WriterThreads = 2
	}
	s := &Server{
		opts: opts, ln: ln,
		hashes: map[string]map[string]string{}, indexes: map[string]*index{},
		config: map[string]string{
			"search.reader-threads":         "2",
			"search.writer-threads":         strconv.Itoa(opts.WriterThreads),
			"search.info-developer-visible": "no",
			"search.max-indexes":            "1000", // src/schema_manager.cc kMaxIndexesDefault
			// The cap on the keys a non-vector query collects (searchLocked;
			// src/valkey_search_options.cc).
			"search.max-nonvector-search-results-fetched": "100000",
		},
		writers: newLimiter(opts.WriterThreads),
		conns:   map[net.Conn]struct{}{},
		stop:    make(chan struct{}),
	}
	s.wg.Add(2)
	go s.serve()
	go s.cron()
	return s, nil
}

// Listen listens on 127.0.0.1 at a free port from 20000 to 32767, out of
// the kernel's ephemeral range, from a start that differs per process.
func Listen() (net.Listener, error) {
	const lo, n = 20000, 32768 - 20000
	start := int(time.Now().UnixNano() % n)
	for i := range n {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", lo+(start+i)%n))
		if err == nil {
			return ln, nil
		}
	}
	return nil, errors.New("valkeyfake: no free port from 20000 to 32767")
}

// Addr is host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// LastEFRuntime is the EF_RUNTIME of the last KNN clause that had one, 0
// for none yet.
func (s *Server) LastEFRuntime() int { return s.knob.Last() }

// EFRuntimes is every EF_RUNTIME a KNN clause carried, ascending.
func (s *Server) EFRuntimes() []int { return s.knob.Seen() }

// URL is the address as a redis:// URL, the form drivers take.
func (s *Server) URL() string { return "redis://" + s.Addr() }

// Close stops listening, drops every connection and waits for them.
func (s *Server) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	err := s.ln.Close()
	close(s.stop)
	s.faults.Close() // releases held commands
	s.connMu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.connMu.Unlock()
	s.wg.Wait()
	return err
}

func (s *Server) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.connMu.Lock()
		if s.closed.Load() {
			s.connMu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.connMu.Unlock()
		s.wg.Add(1)
		go s.handle(c)
	}
}

// conn is one client's state.
type conn struct {
	id     int64
	authed bool
	w      writer
}

func (s *Server) handle(nc net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.connMu.Lock()
		delete(s.conns, nc)
		s.connMu.Unlock()
		nc.Close()
	}()
	r := bufio.NewReaderSize(nc, 64<<10)
	c := &conn{id: s.nextID.Add(1), authed: s.opts.Password == "", w: writer{bufio.NewWriter(nc)}}
	for {
		args, err := readCommand(r)
		if err != nil {
			if errors.Is(err, errProtocol) {
				c.w.err("ERR " + err.Error())
				c.w.Flush()
			}
			return
		}
		if len(args) == 0 {
			continue
		}
		if drop, ok := s.fault(c, args[0]); ok {
			if drop {
				return
			}
			continue
		}
		s.dispatch(c, args)
		// Flush once the client has nothing more buffered, so a pipeline is
		// answered in one write, as the real server does.
		if r.Buffered() == 0 && c.w.Flush() != nil {
			return
		}
	}
}

type handler func(s *Server, c *conn, args []string)

var commands = map[string]handler{
	"PING": cmdPing, "HELLO": cmdHello, "CLIENT": cmdClient, "INFO": cmdInfo, "CONFIG": cmdConfig,
	"HSET": cmdHset, "HGETALL": cmdHgetall, "DEL": cmdDel, "UNLINK": cmdDel, "SCAN": cmdScan,
	"FT.CREATE": cmdFtCreate, "FT.DROPINDEX": cmdFtDrop, "FT.SEARCH": cmdFtSearch, "FT.INFO": cmdFtInfo, "FT._LIST": cmdFtList,
}

func (s *Server) dispatch(c *conn, args []string) {
	name := strings.ToUpper(args[0])
	h, ok := commands[name]
	switch {
	case !ok:
		c.w.err(fmt.Sprintf("ERR unknown command '%s'", args[0]))
	case !c.authed && name != "HELLO":
		c.w.err("NOAUTH Authentication required.")
	default:
		h(s, c, args)
	}
}

// arity writes Valkey's refusal of the command's number of arguments
// unless ok, and says ok.
func arity(c *conn, args []string, ok bool) bool {
	if !ok {
		c.w.err(fmt.Sprintf("ERR wrong number of arguments for '%s' command", strings.ToLower(args[0])))
	}
	return ok
}

// Fault is what the fake does in place of its answer to a command
// (fakekit.Fault): raw bytes, a dropped connection, a hold or a delay.
type Fault = fakekit.Fault

// Inject queues f.
func (s *Server) Inject(f Fault) { s.faults.Inject(f) }

// ClearFaults removes every queued fault and releases held commands.
func (s *Server) ClearFaults() { s.faults.Clear() }

// fault applies the first queued fault for command: ok says the command is
// not to be answered, drop that the connection is to be closed.
func (s *Server) fault(c *conn, command string) (drop, ok bool) {
	t, ok := s.faults.TakeCommand(command)
	if !ok {
		return false, false
	}
	if !t.Wait(context.Background()) {
		return true, true
	}
	if t.Raw != "" {
		c.w.WriteString(t.Raw)
		c.w.Flush()
	}
	return t.Drop, t.Raw != "" || t.Drop
}
