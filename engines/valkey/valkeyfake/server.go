// Package valkeyfake is a wire-contract fake of Valkey with the
// valkey-search 1.2 module: a wire-contract fake, not a search engine. It
// exists to test the searchbench Valkey driver's commands and replies, and
// it is written from valkey-search's documented behaviour and parser
// sources (docs/commands/ft.create.md, ft.search.md, ft.info.md;
// src/commands/ft_create_parser.cc, ft_search_parser.cc, filter_parser.cc;
// src/schema_manager.cc).
//
// It speaks RESP2 and RESP3 (HELLO 2|3, AUTH), keeps hashes, and implements
// HSET, HGETALL, DEL, UNLINK, EXISTS, SCAN, PING, ECHO, SELECT 0, INFO,
// CONFIG GET|SET, CLIENT …, FT.CREATE, FT.DROPINDEX, FT.SEARCH, FT.INFO and
// FT._LIST. Indexes are real: each sees only the keys under its prefixes,
// TEXT is tokenised at the index's punctuation, lowercased and stripped of
// the 33 Lucene stop words unless NOSTOPWORDS, and a query word matches an
// indexed word equal to it (no stemming: the driver's tests and the
// conformance suite search for words as written); TAG is exact with a separator; NUMERIC takes ranges; HNSW is
// approximated by exact KNN. Non-vector results come back in no particular
// order (a hash of the key), as valkey-search does not rank them.
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
// parser's range; the documentation supports only 2), a LIMIT or KNN over
// 10000, unknown or unused parameters. Messages marked UNCONFIRMED in the
// code are shaped like the real ones but were not found verbatim.
//
// Not implemented: JSON, FT.AGGREGATE, aliases, fuzzy and suffix terms,
// SORTBY ordering, cluster mode, MULTI/EXEC.
package valkeyfake

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// Version is what the fake reports as its Valkey and valkey-search
// versions: the valkey/valkey-bundle:9.1.0 pairing.
const (
	ValkeyVersion = "9.1.0"
	SearchVersion = "1.2.0"
	// searchVersionInt is vmsdk::ValkeyVersion's integer form,
	// (major<<16)|(minor<<8)|patch, as INFO modules shows it (UNCONFIRMED).
	searchVersionInt = 1<<16 | 2<<8 | 0
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
	clients      atomic.Int64
	nextID       atomic.Int64

	faults fakekit.Faults

	wg     sync.WaitGroup
	connMu sync.Mutex
	conns  map[net.Conn]struct{}
	closed atomic.Bool
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
	}
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

// Listen listens on 127.0.0.1 at a free port from 20000 to 32767: servers
// started on the development machines stay below 32768, out of the
// kernel's ephemeral range. The search starts at a point that differs from
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

// URL is the address as a redis:// URL, the form drivers take.
func (s *Server) URL() string { return "redis://" + s.Addr() }

// Close stops listening, drops every connection and waits for them.
func (s *Server) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	err := s.ln.Close()
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
		"HSET": cmdHset, "HGETALL": cmdHgetall, "DEL": cmdDel, "UNLINK": cmdDel, "EXISTS": cmdExists, "SCAN": cmdScan,
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

func cmdPing(_ *Server, c *conn, args []string) {
	if len(args) > 1 {
		c.w.bulk(args[1])
		return
	}
	c.w.simple("PONG")
}

func cmdEcho(_ *Server, c *conn, args []string) {
	if arity(c, args, 2) {
		c.w.bulk(args[1])
	}
}

func cmdSelect(_ *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	if args[1] != "0" {
		c.w.err("ERR DB index is out of range")
		return
	}
	c.w.simple("OK")
}

func (s *Server) checkAuth(user, pass string) bool {
	return s.opts.Password != "" && user == s.opts.Username && pass == s.opts.Password
}

const wrongPass = "WRONGPASS invalid username-password pair or user is disabled."

func cmdAuth(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	user, pass := "default", args[1]
	if len(args) > 2 {
		user, pass = args[1], args[2]
	}
	if s.opts.Password == "" {
		c.w.err("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
		return
	}
	if !s.checkAuth(user, pass) {
		c.w.err(wrongPass)
		return
	}
	c.authed = true
	c.w.simple("OK")
}

func cmdHello(s *Server, c *conn, args []string) {
	proto := c.w.proto
	if len(args) > 1 {
		p, err := strconv.Atoi(args[1])
		if err != nil {
			c.w.err("ERR Protocol version is not an integer or out of range")
			return
		}
		if p != 2 && p != 3 {
			c.w.err("NOPROTO unsupported protocol version")
			return
		}
		proto = p
	}
	for i := 2; i < len(args); i++ {
		switch strings.ToUpper(args[i]) {
		case "AUTH":
			if i+2 >= len(args) {
				c.w.err("ERR Syntax error in HELLO option 'AUTH'")
				return
			}
			if !s.checkAuth(args[i+1], args[i+2]) {
				c.w.err(wrongPass)
				return
			}
			c.authed = true
			i += 2
		case "SETNAME":
			i++
		default:
			c.w.err(fmt.Sprintf("ERR Syntax error in HELLO option '%s'", args[i]))
			return
		}
	}
	if !c.authed {
		c.w.err("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	c.w.proto = proto
	c.w.mapHeader(7)
	c.w.bulk("server")
	c.w.bulk("valkey")
	c.w.bulk("version")
	c.w.bulk(ValkeyVersion)
	c.w.bulk("proto")
	c.w.int(int64(proto))
	c.w.bulk("id")
	c.w.int(c.id)
	c.w.bulk("mode")
	c.w.bulk("standalone")
	c.w.bulk("role")
	c.w.bulk("master")
	c.w.bulk("modules")
	c.w.array(0)
}

func cmdClient(_ *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	switch strings.ToUpper(args[1]) {
	case "ID":
		c.w.int(c.id)
	case "SETINFO", "SETNAME", "TRACKING", "NO-EVICT", "NO-TOUCH":
		c.w.simple("OK")
	default:
		c.w.err(fmt.Sprintf("ERR unknown subcommand '%s'. Try CLIENT HELP.", args[1]))
	}
}

// --- keyspace -----------------------------------------------------------

func cmdHset(s *Server, c *conn, args []string) {
	if len(args) < 4 || len(args)%2 != 0 {
		c.w.err("ERR wrong number of arguments for 'hset' command")
		return
	}
	key := args[1]
	s.mu.Lock()
	h := s.hashes[key]
	if h == nil {
		h = map[string]string{}
		s.hashes[key] = h
	}
	added := 0
	for i := 2; i < len(args); i += 2 {
		if _, ok := h[args[i]]; !ok {
			added++
		}
		h[args[i]] = args[i+1]
	}
	done := s.mutateLocked(key)
	s.mu.Unlock()
	s.wait(done)
	c.w.int(int64(added))
}

// cmdHgetall is HGETALL key: the hash's fields and values (a map in RESP3,
// a flat array in RESP2), empty for a missing key. Its arity is exactly 2
// (Valkey's command table), so extra arguments are refused.
func cmdHgetall(s *Server, c *conn, args []string) {
	if len(args) != 2 {
		c.w.err("ERR wrong number of arguments for 'hgetall' command")
		return
	}
	s.mu.Lock()
	h := s.hashes[args[1]]
	fields := make([]string, 0, len(h))
	for f := range h {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	c.w.mapHeader(len(fields))
	for _, f := range fields {
		c.w.bulk(f)
		c.w.bulk(h[f])
	}
	s.mu.Unlock()
}

func cmdDel(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	var n int64
	var waits []*sync.WaitGroup
	s.mu.Lock()
	for _, k := range args[1:] {
		if _, ok := s.hashes[k]; ok {
			delete(s.hashes, k)
			n++
			waits = append(waits, s.mutateLocked(k))
		}
	}
	s.mu.Unlock()
	s.wait(waits...)
	c.w.int(n)
}

func cmdExists(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	var n int64
	s.mu.Lock()
	for _, k := range args[1:] {
		if _, ok := s.hashes[k]; ok {
			n++
		}
	}
	s.mu.Unlock()
	c.w.int(n)
}

// cmdScan iterates keys in sorted order; the cursor is the position after
// the last key returned.
func cmdScan(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	cursor, err := strconv.Atoi(args[1])
	if err != nil || cursor < 0 {
		c.w.err("ERR invalid cursor")
		return
	}
	pattern, count := "*", 10
	for i := 2; i < len(args); i++ {
		switch strings.ToUpper(args[i]) {
		case "MATCH":
			if i+1 >= len(args) {
				c.w.err("ERR syntax error")
				return
			}
			i++
			pattern = args[i]
		case "COUNT":
			if i+1 >= len(args) {
				c.w.err("ERR syntax error")
				return
			}
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil || n < 1 {
				c.w.err("ERR syntax error")
				return
			}
			count = n
		case "TYPE":
			i++
		default:
			c.w.err("ERR syntax error")
			return
		}
	}
	s.mu.Lock()
	keys := make([]string, 0, len(s.hashes))
	for k := range s.hashes {
		keys = append(keys, k)
	}
	s.mu.Unlock()
	sort.Strings(keys)
	var out []string
	next := 0
	for i := cursor; i < len(keys); i++ {
		if globMatch(pattern, keys[i]) {
			out = append(out, keys[i])
		}
		if i+1-cursor >= count {
			next = i + 1
			break
		}
	}
	if next >= len(keys) {
		next = 0
	}
	c.w.array(2)
	c.w.bulk(strconv.Itoa(next))
	c.w.bulks(out)
}

// globMatch supports the glob forms a key-prefix scan uses: '*', '?' and
// backslash escapes.
func globMatch(pattern, s string) bool {
	if pattern == "" {
		return s == ""
	}
	switch pattern[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if globMatch(pattern[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return s != "" && globMatch(pattern[1:], s[1:])
	case '\\':
		if len(pattern) > 1 {
			pattern = pattern[1:]
		}
	}
	return s != "" && s[0] == pattern[0] && globMatch(pattern[1:], s[1:])
}

// --- indexing -----------------------------------------------------------

// mutateLocked queues key's current state for every index whose prefix
// matches it and returns what the writing client waits on, nil when no
// index matches (the client is not blocked). s.mu is held.
// As in valkey-search (IndexSchema::ProcessKeyspaceNotification), an index
// counts an ingested hash key when the mutation reaches it, if the hash has
// one of its attributes; field counters count when a writer applies it.
func (s *Server) mutateLocked(key string) *sync.WaitGroup {
	var wg *sync.WaitGroup
	h := s.hashes[key]
	for _, ix := range s.indexes {
		if !ix.matches(key) {
			continue
		}
		if wg == nil {
			wg = &sync.WaitGroup{}
		}
		if h != nil && ix.tracks(h) {
			s.ingestKeys.Add(1)
		}
		ix.queue++
		wg.Add(1)
		s.writerQueue.Add(1)
		go s.apply(ix, key, wg)
	}
	return wg
}

// wait holds a writing client until its mutations are applied; while it
// waits it counts as blocked (ingest_hash_blocked). Nil groups are
// mutations no index took.
func (s *Server) wait(groups ...*sync.WaitGroup) {
	counted := false
	for _, g := range groups {
		if g == nil {
			continue
		}
		if !counted {
			s.blocked.Add(1)
			defer s.blocked.Add(-1)
			counted = true
		}
		g.Wait()
	}
}

// apply is one writer job: it takes a writer slot, then brings ix up to the
// key's current state.
func (s *Server) apply(ix *index, key string, wg *sync.WaitGroup) {
	defer wg.Done()
	s.writers.acquire()
	s.writerQueue.Add(-1)
	defer s.writers.release()
	if s.opts.IndexDelay > 0 {
		time.Sleep(s.opts.IndexDelay)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ix.queue--
	if s.indexes[ix.name] != ix {
		return // dropped meanwhile
	}
	h, ok := s.hashes[key]
	if !ok {
		delete(ix.docs, key)
		return
	}
	d, counts, failures := ix.ingest(h)
	ix.failures += int64(failures)
	n := 0
	for t, k := range counts {
		s.ingestFields[t].Add(int64(k))
		n += k
	}
	if n == 0 {
		delete(ix.docs, key)
		return
	}
	ix.docs[key] = d
}

// limiter is a resizable counting semaphore: the writer pool, whose size
// CONFIG SET search.writer-threads changes at run time.
type limiter struct {
	mu    sync.Mutex
	cond  *sync.Cond
	limit int
	used  int
}

func newLimiter(n int) *limiter {
	l := &limiter{limit: n}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *limiter) acquire() {
	l.mu.Lock()
	for l.used >= l.limit {
		l.cond.Wait()
	}
	l.used++
	l.mu.Unlock()
}

func (l *limiter) release() {
	l.mu.Lock()
	l.used--
	l.mu.Unlock()
	l.cond.Broadcast()
}

func (l *limiter) resize(n int) {
	l.mu.Lock()
	l.limit = n
	l.mu.Unlock()
	l.cond.Broadcast()
}

// --- FT.* ---------------------------------------------------------------

func cmdFtCreate(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	ix, err := parseCreate(args[1:])
	if err != nil {
		c.w.err(err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.indexes[ix.name]; dup {
		c.w.err(fmt.Sprintf("Index %s in database 0 already exists.", ix.name))
		return
	}
	// src/schema_manager.cc CreateIndexSchema: the count is checked against
	// search.max-indexes as the server has it now (CONFIG SET changes it).
	if limit, _ := strconv.Atoi(s.config["search.max-indexes"]); len(s.indexes) >= limit {
		c.w.err(fmt.Sprintf("Maximum number of indexes reached (%d). Cannot create additional indexes.", limit))
		return
	}
	// The initial scan (backfill): existing keys under the prefixes.
	for key, h := range s.hashes {
		if ix.matches(key) {
			d, counts, failures := ix.ingest(h)
			ix.failures += int64(failures)
			if len(counts) > 0 {
				ix.docs[key] = d
			}
		}
	}
	s.indexes[ix.name] = ix
	c.w.simple("OK")
}

func notFound(name string) string {
	return fmt.Sprintf("Index with name '%s' not found in database 0", name)
}

func cmdFtDrop(s *Server, c *conn, args []string) {
	if len(args) != 2 {
		c.w.err("ERR wrong number of arguments for 'FT.DROPINDEX' command")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.indexes[args[1]]; !ok {
		c.w.err(notFound(args[1]))
		return
	}
	delete(s.indexes, args[1])
	c.w.simple("OK")
}

func cmdFtList(s *Server, c *conn, _ []string) {
	s.mu.Lock()
	names := make([]string, 0, len(s.indexes))
	for n := range s.indexes {
		names = append(names, n)
	}
	s.mu.Unlock()
	sort.Strings(names)
	c.w.bulks(names)
}

func cmdFtInfo(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ix, ok := s.indexes[args[1]]
	if !ok {
		c.w.err(notFound(args[1]))
		return
	}
	records := 0
	for _, d := range ix.docs {
		records += len(d.text) + len(d.tags) + len(d.nums) + len(d.vecs)
	}
	stop := make([]string, 0, len(ix.text.stopWords))
	for w := range ix.text.stopWords {
		stop = append(stop, w)
	}
	sort.Strings(stop)
	attrs := make(list, len(ix.attrs))
	for i, a := range ix.attrs {
		attrs[i] = attributeInfo(ix, a)
	}
	// A flat array of name/value pairs, as documented for LOCAL.
	c.w.value(list{
		"index_name", ix.name,
		"index_definition", list{"key_type", "HASH", "prefixes", slices.Clone(ix.prefixes), "default_score", "1"},
		"attributes", attrs,
		"num_docs", len(ix.docs),
		"num_records", records,
		"hash_indexing_failures", ix.failures,
		"backfill_in_progress", "0",
		"backfill_complete_percent", "1.000000",
		"mutation_queue_size", strconv.FormatInt(ix.queue, 10),
		"recent_mutations_queue_delay", "0 sec",
		"state", "ready",
		"punctuation", ix.text.punctuation,
		"stop_words", stop,
		"with_offsets", boolDigit(ix.text.offsets),
		"language", "english",
		"min_stem_size", min(ix.text.minStemSize, 1<<31-1),
		"total_term_occurrences", 0,
		"num_terms", 0,
	})
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func attributeInfo(ix *index, a *attribute) list {
	out := list{"identifier", a.identifier, "attribute", a.alias, "type", a.typ.String(), "user_indexed_memory", 0}
	present := 0
	for _, d := range ix.docs {
		_, tag := d.tags[a.alias]
		_, vec := d.vecs[a.alias]
		if tag || vec {
			present++
		}
	}
	switch a.typ {
	case typeTag:
		out = append(out, "SEPARATOR", string(a.separator), "CASESENSITIVE", b2i(a.caseSensitive), "SIZE", present)
	case typeText:
		out = append(out, "WITH_SUFFIX_TRIE", 0, "NO_STEM", b2i(a.noStem), "WEIGHT", "1")
	case typeVector:
		out = append(out, "index", list{
			"capacity", 10240, "dimensions", a.dim, "distance_metric", a.metric, "size", present, "data_type", "FLOAT32",
			"algorithm", list{"name", a.algorithm, "m", a.m, "ef_construction", a.efc, "ef_runtime", a.efRuntime},
		})
	}
	return out
}

// searchArgs are FT.SEARCH's options.
type searchArgs struct {
	noContent   bool
	offset, num int
	params      map[string]string
	used        map[string]bool
	dialect     int
}

func cmdFtSearch(s *Server, c *conn, args []string) {
	if !arity(c, args, 3) {
		return
	}
	s.mu.Lock()
	ix, ok := s.indexes[args[1]]
	if !ok {
		s.mu.Unlock()
		c.w.err(notFound(args[1]))
		return
	}
	res, err := s.searchLocked(ix, args)
	if err != nil {
		s.mu.Unlock()
		c.w.err(err.Error())
		return
	}
	page := res.keys[min(res.sa.offset, len(res.keys)):min(res.sa.offset+res.sa.num, len(res.keys))]
	c.w.array(1 + len(page))
	c.w.int(int64(res.total))
	for _, k := range page {
		c.w.bulk(k)
	}
	s.mu.Unlock()
}

type searchResult struct {
	sa    searchArgs
	keys  []string
	total int
}

// errContent answers a search that asks for the documents' fields: the
// driver reads keys only (NOCONTENT), and the fake models no other reply.
var errContent = errors.New("valkeyfake: only FT.SEARCH … NOCONTENT (or RETURN 0) is modelled; the driver sends nothing else")

// parseSearchArgs parses the options after the query string, as
// SearchParser (a KeyValueParser) does: it stops at the first word it does
// not know, which is then an unexpected parameter.
func parseSearchArgs(args []string) (searchArgs, error) {
	sa := searchArgs{num: 10, dialect: 2, params: map[string]string{}, used: map[string]bool{}}
	it := &argIter{args: args, pos: 3}
	for it.more() {
		start := it.pos
		var err error
		switch {
		case it.match("NOCONTENT"):
			sa.noContent = true
		case it.match("LIMIT"):
			err = sa.parseLimit(it)
		case it.match("PARAMS"):
			err = sa.parseParams(it)
		case it.match("DIALECT"):
			v, ok := it.next()
			n, perr := strconv.Atoi(v)
			if !ok || perr != nil {
				return sa, fmt.Errorf("Error parsing value for the parameter `DIALECT` - `%s` is not a valid numeric value", v)
			}
			sa.dialect = n
		case it.match("RETURN"):
			err = sa.parseReturn(it)
		case it.match("TIMEOUT"):
			err = parseTimeout(it)
		case it.match("VERBATIM"): // no stemming to turn off
		case it.match("SLOP"):
			it.next()
		case it.match("SORTBY"):
			it.next()
			if !it.match("ASC") {
				it.match("DESC")
			}
		case it.match("INORDER"), it.match("LOCALONLY"), it.match("ALLSHARDS"), it.match("SOMESHARDS"),
			it.match("CONSISTENT"), it.match("INCONSISTENT"), it.match("WITHSORTKEYS"):
		}
		if err != nil {
			return sa, err
		}
		if it.pos == start {
			return sa, fmt.Errorf("Unexpected parameter at position %d:%s", it.pos, it.peek())
		}
	}
	return sa, nil
}

// parseLimit reads LIMIT's offset and count.
func (sa *searchArgs) parseLimit(it *argIter) error {
	for _, dst := range []*int{&sa.offset, &sa.num} {
		v, ok := it.next()
		n, err := strconv.ParseUint(v, 10, 63)
		if !ok || err != nil {
			return fmt.Errorf("Bad arguments for LIMIT: `%s` is outside acceptable bounds", v)
		}
		*dst = int(min(n, 1<<40))
	}
	if sa.num > maxLimit || sa.offset > maxLimit {
		// UNCONFIRMED bound; the message form is the parser's.
		return fmt.Errorf("Bad arguments for LIMIT: `%d` is outside acceptable bounds", max(sa.num, sa.offset))
	}
	return nil
}

// parseParams reads PARAMS' count and its name/value pairs.
func (sa *searchArgs) parseParams(it *argIter) error {
	v, ok := it.next()
	n, err := strconv.ParseUint(v, 10, 31)
	if !ok || err != nil {
		return fmt.Errorf("Error parsing value for the parameter `PARAMS` - `%s` is not a valid numeric value", v)
	}
	if n&1 == 1 {
		return errors.New("Parameter count must be an even number.")
	}
	if int(n) > len(it.args)-it.pos {
		return errors.New("Error parsing value for the parameter `PARAMS` - Missing argument")
	}
	for range n / 2 {
		k, _ := it.next()
		val, _ := it.next()
		if _, dup := sa.params[k]; dup {
			return fmt.Errorf("Parameter %s is already defined.", k)
		}
		sa.params[k] = val
	}
	return nil
}

// parseReturn reads RETURN's count and field names; RETURN 0 is NOCONTENT.
// The fake answers no other RETURN (errContent).
func (sa *searchArgs) parseReturn(it *argIter) error {
	v, ok := it.next()
	n, err := strconv.ParseUint(v, 10, 31)
	if !ok || err != nil || int(n) > len(it.args)-it.pos {
		return fmt.Errorf("Error parsing value for the parameter `RETURN` - `%s` is not a valid numeric value", v)
	}
	if n == 0 {
		sa.noContent = true
	}
	it.pos += int(n)
	return nil
}

// parseTimeout checks TIMEOUT's milliseconds (the fake does not time out).
func parseTimeout(it *argIter) error {
	v, ok := it.next()
	n, err := strconv.Atoi(v)
	if !ok || err != nil || n < 0 {
		return fmt.Errorf("Error parsing value for the parameter `TIMEOUT` - `%s` is not a valid numeric value", v)
	}
	if n > 60000 {
		return errors.New("TIMEOUT must be a positive integer greater than 0 and cannot exceed 60000.")
	}
	return nil
}

func (sa *searchArgs) param(ref string) (string, error) {
	if !strings.HasPrefix(ref, "$") {
		return ref, nil
	}
	v, ok := sa.params[ref[1:]]
	if !ok {
		return "", fmt.Errorf("Parameter %s not found.", ref[1:])
	}
	sa.used[ref[1:]] = true
	return v, nil
}

func (s *Server) searchLocked(ix *index, args []string) (searchResult, error) {
	sa, err := parseSearchArgs(args)
	if err != nil {
		return searchResult{}, err
	}
	q := args[2]
	if len(q) > maxQueryBytes {
		return searchResult{}, fmt.Errorf("Query string is too long, max length is %d bytes.", maxQueryBytes)
	}
	filter, vector, isKNN := strings.Cut(q, "=>")
	pred, err := parseFilter(ix, filter)
	if err != nil {
		return searchResult{}, fmt.Errorf("Invalid filter expression: `%s`. %w", strings.TrimSpace(filter), err)
	}
	var k *knn
	var blob []byte
	var kVal int
	if isKNN {
		if k, err = parseKNN(ix, vector); err != nil {
			return searchResult{}, fmt.Errorf("Error parsing vector similarity parameters: `%s`. %w", strings.TrimSpace(vector), err)
		}
		if kVal, blob, err = s.knnValues(&sa, k); err != nil {
			return searchResult{}, fmt.Errorf("Error parsing vector similarity parameters: %w", err)
		}
		if kVal < 1 || kVal > maxKNN {
			return searchResult{}, fmt.Errorf("KNN parameter must be a positive integer greater than 0 and cannot exceed %d.", maxKNN)
		}
	}
	if sa.dialect < 2 || sa.dialect > 4 {
		return searchResult{}, errors.New("DIALECT requires a non negative integer >=2 and <= 4")
	}
	for name := range sa.params {
		if !sa.used[name] {
			return searchResult{}, fmt.Errorf("Parameter `%s` not used.", name)
		}
	}
	if !sa.noContent {
		return searchResult{}, errContent
	}
	var keys []string
	for key, d := range ix.docs {
		if pred.eval(d) {
			keys = append(keys, key)
		}
	}
	if !isKNN {
		// No relevance ranking: an order unrelated to the query or to
		// insertion, so that nothing can lean on it.
		slices.SortFunc(keys, func(a, b string) int { return int64Cmp(keyHash(a), keyHash(b)) })
		// src/query/search.cc DoSearchNonVector: the results appender
		// stops once max-nonvector-search-results-fetched keys are
		// collected, before LIMIT is applied, and the reply's total is the
		// number collected: a capped count, not the number of matches.
		if limit, err := strconv.Atoi(s.config["search.max-nonvector-search-results-fetched"]); err == nil && len(keys) > limit {
			keys = keys[:limit]
		}
		return searchResult{sa: sa, keys: keys, total: len(keys)}, nil
	}
	return knnResult(sa, ix, k, kVal, blob, keys), nil
}

func (s *Server) knnValues(sa *searchArgs, k *knn) (int, []byte, error) {
	kStr, err := sa.param(k.kStr)
	if err != nil {
		return 0, nil, err
	}
	kVal, err := strconv.ParseUint(kStr, 10, 31)
	if err != nil {
		return 0, nil, fmt.Errorf("`%s` is not a valid numeric value", kStr)
	}
	blob, err := sa.param(k.blobStr)
	if err != nil {
		return 0, nil, err
	}
	if k.efStr != "" {
		if _, err := sa.param(k.efStr); err != nil {
			return 0, nil, err
		}
	}
	if k.as != "" {
		if _, err := sa.param(k.as); err != nil {
			return 0, nil, err
		}
	}
	if len(blob) != 4*k.field.dim {
		return 0, nil, fmt.Errorf("query vector blob size (%d) does not match index's expected size (%d).", len(blob), 4*k.field.dim)
	}
	return int(kVal), []byte(blob), nil
}

func knnResult(sa searchArgs, ix *index, k *knn, kVal int, blob []byte, keys []string) searchResult {
	q := make([]float32, k.field.dim)
	for i := range q {
		q[i] = float32frombytes(blob[4*i:])
	}
	scores := map[string]float64{}
	var cands []string
	for _, key := range keys {
		v, ok := ix.docs[key].vecs[k.field.alias]
		if !ok {
			continue
		}
		scores[key] = distance(k.field.metric, q, v)
		cands = append(cands, key)
	}
	sort.Slice(cands, func(i, j int) bool {
		if scores[cands[i]] != scores[cands[j]] {
			return scores[cands[i]] < scores[cands[j]]
		}
		return cands[i] < cands[j]
	})
	cands = cands[:min(kVal, len(cands))]
	return searchResult{sa: sa, keys: cands, total: len(cands)}
}

func keyHash(k string) int64 {
	h := fnv.New64a()
	io.WriteString(h, k)
	return int64(h.Sum64() >> 1)
}

func int64Cmp(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
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
