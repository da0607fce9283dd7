// Package valkeyfake is a wire-contract fake of Valkey with the
// valkey-search 1.2 module, not a search engine. It exists to test the searchbench Valkey driver's commands and replies, and
// it is written from valkey-search's documented behaviour and parser
// sources (docs/commands/ft.create.md, ft.search.md, ft.info.md;
// src/commands/ft_create_parser.cc, ft_search_parser.cc, filter_parser.cc;
// src/schema_manager.cc).
//
// It speaks RESP2 and RESP3 (HELLO 2|3, AUTH), keeps hashes, and implements
// HSET, HGETALL, DEL, UNLINK, EXISTS, SCAN, PING, ECHO, SELECT 0, INFO,
// CONFIG GET|SET, CLIENT …, FT.CREATE, FT.DROPINDEX, FT.SEARCH, FT.INFO and
// FT._LIST. Indexes are real: each sees only the keys under its prefixes,
// and every hash there is one of its documents; TEXT is tokenised at the
// index's punctuation, lowercased and stripped of the 33 Lucene stop words
// unless NOSTOPWORDS, and a query word matches an indexed word equal to it
// or, outside quotes and VERBATIM, one with the same Snowball English stem
// (the module's libstemmer "english"); TAG is exact with a separator;
// NUMERIC takes ranges; HNSW is approximated by exact KNN. Non-vector
// results come back in no particular order (a hash of the key), as
// valkey-search does not rank them. FT.INFO and the ingest counters follow
// the module's bookkeeping (src/index_schema.cc, 1.2.1): see cmdFtInfo,
// mutateLocked and ingest. It was held to valkey-search 1.2.1
// (TestFakeHeldToModule, TestRepliesAsModule). FT.SEARCH answers keys only
// (NOCONTENT or RETURN 0, the driver's form); a search for the documents'
// fields is refused by name.
//
// Writes behave as valkey-search's do for an ordinary client: the reply to
// HSET/DEL is held until every index whose prefix matches the key has
// applied the mutation, on a pool of writer workers (search.writer-threads).
// Options.IndexDelay slows each application down so that tests can watch
// mutation_queue_size, search_writer_queue_size and the ingest counters move.
//
// It rejects what valkey-search rejects, with its error texts where the
// sources give them: FT.CREATE with an unknown field type, a vector field
// missing DIM/TYPE/DISTANCE_METRIC or with the wrong attribute count, a
// duplicate index name; FT.SEARCH on an unknown index, a query syntax error,
// a vector parameter of the wrong byte length, a DIALECT outside 2–4 (the
// parser's range; the documentation supports only 2), a KNN over 10000,
// unknown or unused parameters.
//
// Injected faults (Inject, ClearFaults) go through the shared kit,
// engines/enginetest/fakekit: a raw reply in place of the answer, the
// connection dropped, the command held or delayed.
//
// Not implemented: JSON, FT.AGGREGATE, aliases, fuzzy and suffix terms,
// SORTBY ordering, field replies, cluster mode, MULTI/EXEC.
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

// Version is what the fake reports as its Valkey and valkey-search
// versions: those it is held to, Debian sid's valkey-server 9.1.2 with the
// valkey-search 1.2.1 module (the launcher's image where the bundle cannot
// be pulled).
const (
	ValkeyVersion = "9.1.2"
	SearchVersion = "1.2.1"
	// searchVersionInt is vmsdk::ValkeyVersion's integer form,
	// (major<<16)|(minor<<8)|patch, as INFO modules and MODULE LIST show
	// it: 66049 for 1.2.1 (src/version.h; seen on the module).
	searchVersionInt = 1<<16 | 2<<8 | 1
)

// Options configure a fake.
type Options struct {
	// Username and Password, when Password is set, are required (AUTH or
	// HELLO … AUTH) before any other command. Username defaults to "default".
	Username, Password string
	// WriterThreads is search.writer-threads' starting value; 0 means 2.
	WriterThreads int
	// IndexDelay is added to every index's application of a mutation.
	IndexDelay time.Duration
}

// Server is a running fake, listening on 127.0.0.1.
type Server struct {
	opts  Options
	ln    net.Listener
	start time.Time

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
	clients      atomic.Int64
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
	if opts.Username == "" {
		opts.Username = "default"
	}
	if opts.WriterThreads <= 0 {
		opts.WriterThreads = 2
	}
	s := &Server{
		opts: opts, ln: ln, start: time.Now(),
		hashes: map[string]map[string]string{}, indexes: map[string]*index{},
		config: map[string]string{
			"search.reader-threads":         "2",
			"search.writer-threads":         strconv.Itoa(opts.WriterThreads),
			"search.info-developer-visible": "no",
			"search.max-indexes":            strconv.Itoa(maxIndexes),
			// search.max-nonvector-search-results-fetched: the cap on the
			// keys a non-vector query collects (src/valkey_search_options.cc,
			// kDefaultMaxNonVectorSearchResultsFetched; see searchLocked).
			"search.max-nonvector-search-results-fetched": strconv.Itoa(maxNonVectorResults),
			"search.query-string-bytes":                   strconv.Itoa(maxQueryBytes),
			"search.max-vector-knn":                       strconv.Itoa(maxKNN),
			"maxclients":                                  "10000",
			"save":                                        "",
			"appendonly":                                  "no",
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

// Listen listens on 127.0.0.1 at a free port from 20000 to 32767: servers
// the tests start stay below 32768, out of the kernel's ephemeral range,
// where the clients' own ports are. The search starts at a point that differs from
// one process to the next, so concurrent test processes rarely collide.
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
	w      *writer
}

func (s *Server) handle(nc net.Conn) {
	defer s.wg.Done()
	s.clients.Add(1)
	defer func() {
		s.clients.Add(-1)
		s.connMu.Lock()
		delete(s.conns, nc)
		s.connMu.Unlock()
		nc.Close()
	}()
	r := bufio.NewReaderSize(nc, 64<<10)
	c := &conn{id: s.nextID.Add(1), authed: s.opts.Password == "", w: &writer{w: bufio.NewWriter(nc), proto: 2}}
	for {
		args, err := readCommand(r)
		if err != nil {
			if errors.Is(err, errProtocol) {
				c.w.err("ERR " + err.Error())
				c.w.w.Flush()
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
		if r.Buffered() == 0 {
			if err := c.w.w.Flush(); err != nil {
				return
			}
		}
	}
}

type handler func(s *Server, c *conn, args []string)

var commands map[string]handler

func init() {
	commands = map[string]handler{
		"PING": cmdPing, "ECHO": cmdEcho, "HELLO": cmdHello, "AUTH": cmdAuth, "SELECT": cmdSelect,
		"CLIENT": cmdClient, "INFO": cmdInfo, "CONFIG": cmdConfig,
		"HSET": cmdHset, "HGETALL": cmdHgetall, "DEL": cmdKeys(true), "UNLINK": cmdKeys(true), "EXISTS": cmdKeys(false), "SCAN": cmdScan,
		"FT.CREATE": cmdFtCreate, "FT.DROPINDEX": cmdFtDrop, "FT.SEARCH": cmdFtSearch, "FT.INFO": cmdFtInfo, "FT._LIST": cmdFtList,
	}
}

func (s *Server) dispatch(c *conn, args []string) {
	name := strings.ToUpper(args[0])
	h, ok := commands[name]
	if !ok {
		rest := make([]string, 0, len(args)-1)
		for _, a := range args[1:] {
			rest = append(rest, "'"+a+"'")
		}
		c.w.err(fmt.Sprintf("ERR unknown command '%s', with args beginning with: %s", args[0], strings.Join(rest, " ")))
		return
	}
	if !c.authed && name != "AUTH" && name != "HELLO" {
		c.w.err("NOAUTH Authentication required.")
		return
	}
	h(s, c, args)
}

func arity(c *conn, args []string, min int) bool {
	if len(args) < min {
		c.w.err(fmt.Sprintf("ERR wrong number of arguments for '%s' command", strings.ToLower(args[0])))
		return false
	}
	return true
}

// Fault is what the fake does in place of its answer to a command
// (fakekit.Fault's Command, Raw, Drop, Hang, Delay and Times): raw bytes on
// the wire (a reply of the wrong shape, a protocol violation, a reply cut
// off), the connection dropped, the command held until ClearFaults or
// delayed. Times 0 lasts until ClearFaults.
type Fault = fakekit.Fault

// Inject queues f.
func (s *Server) Inject(f Fault) { s.faults.Inject(f) }

// ClearFaults removes every queued fault and releases held commands.
func (s *Server) ClearFaults() { s.faults.Clear() }

// fault applies the first queued fault for command, if any: ok says one
// was taken and the command is not to be answered, drop that the
// connection is to be closed. A fault that only holds or delays the
// command leaves it to be answered as usual.
func (s *Server) fault(c *conn, command string) (drop, ok bool) {
	t, ok := s.faults.TakeCommand(command)
	if !ok {
		return false, false
	}
	if !t.Wait(context.Background()) {
		return true, true
	}
	if t.Raw != "" {
		// A reply the real server never sends: for the driver's tests of
		// answers it cannot read.
		c.w.w.WriteString(t.Raw)
		c.w.w.Flush()
	}
	return t.Drop, t.Raw != "" || t.Drop
}
