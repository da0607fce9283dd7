package valkey

import (
	"context"
	"errors"
	"fmt"
	"github.com/searchbench/searchbench/engines/config"
	"math"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/quote"
)

func init() { engines.Register("valkey", driver{}) }

type driver struct{}

func (driver) Describe() engines.Description {
	return engines.Description{
		Summary:    "Valkey + valkey-search 1.2: hashes under a prefix, FT.CREATE TEXT/TAG/NUMERIC/HNSW, all-words-then-any-word text search, KNN, Study B index presets",
		Visibility: engines.Searchable,
		Getter:     true,
	}
}

// Tunables documented in the package comment.
const (
	DefaultPoolSize  = 2048
	connBuffer       = 64 << 10
	batchWorkers     = 32
	maxPipelineBytes = 16 << 10
	maxK             = 10000
	scanCount        = 1000
	maxScanCalls     = 100_000 // bounds the key sweep at ~100M keys
)

// settings are the parsed Options.
type settings struct {
	prefix        string
	types         map[engines.FieldType]bool // what the indexes hold
	matching      int
	idle          int
	hybrid        bool
	readerThreads int
	writerThreads int
	pool          int
	tiered        bool
}

// fieldTypeNames are the values of the fields option.
var fieldTypeNames = map[string]engines.FieldType{"text": engines.Text, "tag": engines.Tag, "numeric": engines.Numeric, "vector": engines.Vector}

// parseOptions reads Config.Options (the package doc lists them).
func parseOptions(opts map[string]string) (settings, error) {
	all := map[engines.FieldType]bool{}
	for _, t := range fieldTypeNames {
		all[t] = true
	}
	r := config.New("valkey", opts)
	s := settings{
		prefix:        config.Value(r, "prefix", "", nonEmpty),
		types:         config.Value(r, "fields", all, parseFieldTypes),
		matching:      r.Int("matching_indexes", 1, 0, 1000),
		idle:          r.Int("idle_indexes", 0, 0, 1000),
		hybrid:        r.Bool("hybrid", false),
		readerThreads: r.Int("reader_threads", 0, 1, 1024),
		writerThreads: r.Int("writer_threads", 0, 1, 1024),
		pool:          r.Int("pool", DefaultPoolSize, 1, 10000),
		tiered:        r.Enum("text_query", "tiered", "tiered", "or") == "tiered",
	}
	if s.hybrid && s.matching != 1 {
		r.Fail("option hybrid=on creates its own pair of indexes; it needs matching_indexes=1")
	}
	if err := checkIndexLimit(s.indexCount(), DefaultMaxIndexes, "valkey-search's default"); err != nil {
		r.Fail("%v", err)
	}
	return s, r.Err()
}

// DefaultMaxIndexes is search.max-indexes' default: the most indexes one
// server holds, all databases together (valkey-search 1.2.0,
// src/schema_manager.cc: kMaxIndexesDefault, checked by CreateIndexSchema
// against the number of index schemas + 1).
const DefaultMaxIndexes = 1000

// indexCount is how many indexes Create makes: hybrid's pair, or the
// matching ones, and the idle ones.
func (s settings) indexCount() int {
	if s.hybrid {
		return 2 + s.idle
	}
	return s.matching + s.idle
}

// checkIndexLimit is the bad-input error for a setup that needs more
// indexes than search.max-indexes allows (whose value is named by source).
func checkIndexLimit(need, limit int, source string) error {
	if need <= limit {
		return nil
	}
	return fmt.Errorf("matching_indexes + idle_indexes make %d indexes, more than search.max-indexes allows (%d, %s)", need, limit, source)
}

func nonEmpty(v string) (string, error) {
	if v == "" {
		return "", errors.New("must not be empty")
	}
	return v, nil
}

// parseFieldTypes reads the fields option: field types, comma-separated,
// each once.
func parseFieldTypes(v string) (map[engines.FieldType]bool, error) {
	out := map[engines.FieldType]bool{}
	for _, name := range strings.Split(v, ",") {
		t, ok := fieldTypeNames[strings.TrimSpace(name)]
		if !ok || out[t] {
			return nil, errors.New("must list field types from text, tag, numeric and vector, each once, comma-separated")
		}
		out[t] = true
	}
	return out, nil
}

// CheckConfig checks the write mode and the options before anything starts
// (engines.ConfigChecker); Open checks them again the same way.
// An attached server's own search.max-indexes is asked for too, so that a
// setup it cannot hold is bad input before anything runs; a server that
// cannot be reached here is left to Open to report.
func (driver) CheckConfig(cfg engines.Config) error {
	set, err := checkConfig(cfg)
	if err != nil || cfg.URL == "" {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	e, err := connect(ctx, cfg, set)
	if err != nil {
		return nil
	}
	defer e.Close()
	lim, err := e.limits(ctx)
	if err != nil || lim.maxIndexes == 0 {
		return nil
	}
	if err := checkIndexLimit(set.indexCount(), int(lim.maxIndexes), "the value of the server at "+quote.SafeURL(cfg.URL)); err != nil {
		return fmt.Errorf("valkey: %w", err)
	}
	return nil
}

// CheckSchema refuses a schema Create would (engines.SchemaChecker): the
// indexes the options make of it (the fields option may name types the
// schema lacks).
func (driver) CheckSchema(cfg engines.Config, schema engines.Schema) error {
	set, err := checkConfig(cfg)
	if err != nil {
		return err
	}
	_, err = set.plan(schema)
	return err
}

// checkTimeout bounds CheckConfig's question to an attached server.
const checkTimeout = 3 * time.Second

func checkConfig(cfg engines.Config) (settings, error) {
	// Writes are searchable when they return: valkey-search blocks the
	// writer until indexed (see the package doc).
	if _, err := engines.CheckWriteMode("valkey", cfg.WriteMode, engines.Searchable); err != nil {
		return settings{}, err
	}
	// An attached server's address is the user's: checked before anything
	// starts.
	if cfg.URL != "" {
		if _, err := parseURL(cfg.URL); err != nil {
			return settings{}, err
		}
	}
	return parseOptions(cfg.Options)
}

// parseURL reads a redis:// URL into the client's options.
func parseURL(raw string) (valkey.ClientOption, error) {
	opt, err := valkey.ParseURL(raw)
	if err != nil {
		// The parse error may quote the URL, password and all.
		return opt, fmt.Errorf("valkey: the URL %s does not parse as redis://host:port", quote.SafeURL(raw))
	}
	for _, addr := range opt.InitAddress {
		if _, port, err := net.SplitHostPort(addr); err == nil {
			if err := config.CheckPort(port); err != nil {
				return opt, fmt.Errorf("valkey: the URL's %w", err)
			}
		}
	}
	return opt, nil
}

func (driver) Open(ctx context.Context, cfg engines.Config) (engines.Engine, error) {
	set, err := checkConfig(cfg)
	if err != nil {
		return nil, err
	}
	e, err := connect(ctx, cfg, set)
	if err != nil {
		return nil, err
	}
	if err := e.configure(ctx); err != nil {
		e.client.Close()
		return nil, fmt.Errorf("valkey: %s: %w", quote.SafeURL(cfg.URL), quote.Redact(err, cfg.Secrets()...))
	}
	return e, nil
}

// connect makes the client for cfg: nothing is sent but the handshake.
func connect(ctx context.Context, cfg engines.Config, set settings) (*Engine, error) {
	if cfg.URL == "" {
		return nil, errors.New("valkey: a URL is needed (redis://host:port)")
	}
	opt, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Username != "" {
		opt.Username = cfg.Username
	}
	if p := cfg.Password.Reveal(); p != "" {
		opt.Password = p
	}
	opt.ForceSingleClient = true
	opt.DisableAutoPipelining = true
	opt.DisableCache = true
	opt.DisableRetry = true
	opt.BlockingPoolSize = set.pool
	opt.ReadBufferEachConn, opt.WriteBufferEachConn = connBuffer, connBuffer
	if d, ok := ctx.Deadline(); ok {
		opt.Dialer.Timeout = time.Until(d)
	}
	client, err := valkey.NewClient(opt)
	if err != nil {
		return nil, fmt.Errorf("valkey: connect to %s: %w", quote.SafeURL(cfg.URL), quote.Redact(err, append(cfg.Secrets(), opt.Password)...))
	}
	return &Engine{client: client, set: set}, nil
}

// serverLimits are the module's settings that bound what a setup may do
// and what a search's total means; 0 where the server does not say (no
// search module).
type serverLimits struct {
	maxIndexes int64
	// maxResults is search.max-nonvector-search-results-fetched: a query
	// without KNN collects at most this many keys before LIMIT is applied,
	// and reports that count as its total (valkey-search 1.2.0,
	// src/query/search.cc DoSearchNonVector: the results appender stops at
	// max_keys; src/valkey_search_options.cc: default 100,000, 0 …
	// UINT32_MAX).
	maxResults int64
}

// limits asks the server for its serverLimits (CONFIG GET; a server
// without the module answers neither name).
func (e *Engine) limits(ctx context.Context) (serverLimits, error) {
	const maxIndexes, maxResults = "search.max-indexes", "search.max-nonvector-search-results-fetched"
	kv, err := e.client.Do(ctx, e.client.B().ConfigGet().Parameter(maxIndexes, maxResults).Build()).AsStrMap()
	if err != nil {
		return serverLimits{}, fmt.Errorf("CONFIG GET %s %s: %w", maxIndexes, maxResults, classify(err))
	}
	var lim serverLimits
	for name, dst := range map[string]*int64{maxIndexes: &lim.maxIndexes, maxResults: &lim.maxResults} {
		raw, ok := kv[name]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n < 0 {
			return serverLimits{}, fmt.Errorf("CONFIG GET %s = %.40q is not a count", name, raw)
		}
		*dst = n
	}
	return lim, nil
}

// configure pings, unlocks the developer INFO fields and sets the thread
// pools when asked.
func (e *Engine) configure(ctx context.Context) error {
	if err := e.client.Do(ctx, e.client.B().Ping().Build()).Error(); err != nil {
		return fmt.Errorf("ping: %w", classify(err))
	}
	// Tolerated: a server without the module (or an older one) refuses the
	// name, and the ingest_* statistics are then absent.
	_ = e.client.Do(ctx, e.client.B().ConfigSet().ParameterValue().ParameterValue("search.info-developer-visible", "yes").Build()).Error()
	for _, t := range []struct {
		name string
		n    int
	}{{"search.reader-threads", e.set.readerThreads}, {"search.writer-threads", e.set.writerThreads}} {
		if t.n == 0 {
			continue
		}
		if err := e.client.Do(ctx, e.client.B().ConfigSet().ParameterValue().ParameterValue(t.name, strconv.Itoa(t.n)).Build()).Error(); err != nil {
			return fmt.Errorf("CONFIG SET %s %d: %w", t.name, t.n, classify(err))
		}
	}
	lim, err := e.limits(ctx)
	if err != nil {
		return err
	}
	e.lim = lim
	return nil
}

// Engine is one schema's documents and indexes on one Valkey server.
type Engine struct {
	client valkey.Client
	set    settings
	lim    serverLimits // as the server said at Open
	// saturated counts searches whose total reached lim.maxResults: a
	// capped count, not the number of documents matched (Stats reports it).
	saturated atomic.Int64

	mu sync.RWMutex
	st *layout // nil until Create
}

var (
	_ engines.Engine        = (*Engine)(nil)
	_ engines.BulkUpserter  = (*Engine)(nil)
	_ engines.Counter       = (*Engine)(nil)
	_ engines.Versioner     = (*Engine)(nil)
	_ engines.StatsReporter = (*Engine)(nil)
	_ engines.Attacher      = (*Engine)(nil)
	_ engines.ConfigChecker = driver{}
)

// indexDef is one index this driver creates.
type indexDef struct {
	name      string
	prefix    string
	fields    []engines.FieldSpec
	types     fieldTypes
	noStop    bool
	vector    string // the Vector field it indexes, or ""
	hasText   bool
	writeSide bool // on the written prefix (not idle)
}

// layout is what Create decided: the prefix, the schema and the indexes.
type layout struct {
	prefix  string
	schema  engines.Schema
	types   fieldTypes
	indexes []indexDef // write-side first, in search preference order, then idle
}

func (l *layout) writeSide() []indexDef {
	var out []indexDef
	for _, d := range l.indexes {
		if d.writeSide {
			out = append(out, d)
		}
	}
	return out
}

// plan derives the indexes from the schema and the options.
func (s settings) plan(schema engines.Schema) (*layout, error) {
	if schema.Name == "" {
		return nil, errors.New("valkey: schema has no name")
	}
	l := &layout{prefix: s.prefix, schema: schema, types: fieldTypes{}}
	if l.prefix == "" {
		l.prefix = schema.Name + ":"
	}
	var indexed, semantic, exact []engines.FieldSpec
	for _, f := range schema.Fields {
		if _, dup := l.types[f.Name]; dup || f.Name == "" {
			return nil, fmt.Errorf("valkey: schema field %q is empty or repeated", f.Name)
		}
		l.types[f.Name] = f
		switch f.Type {
		case engines.Text, engines.Tag, engines.Numeric:
		case engines.Vector:
			if f.Dim < 1 || f.Dim > 32768 {
				return nil, fmt.Errorf("valkey: vector field %s: dimension %d is outside 1..32768", f.Name, f.Dim)
			}
		default:
			return nil, fmt.Errorf("valkey: field %s: type %s: %w", f.Name, f.Type, engines.ErrUnsupported)
		}
		if !s.types[f.Type] {
			continue // in the hash, not in the indexes
		}
		indexed = append(indexed, f)
		if f.Type == engines.Text {
			exact = append(exact, f)
		} else {
			semantic = append(semantic, f)
		}
	}
	if len(indexed) == 0 && s.matching+s.idle > 0 {
		return nil, fmt.Errorf("valkey: schema %s has no field of the types the fields option names", schema.Name)
	}
	def := func(name, prefix string, fields []engines.FieldSpec, noStop, writeSide bool) indexDef {
		d := indexDef{name: name, prefix: prefix, fields: fields, types: fieldTypes{}, noStop: noStop, writeSide: writeSide}
		for _, f := range fields {
			d.types[f.Name] = f
			switch f.Type {
			case engines.Vector:
				if d.vector == "" {
					d.vector = f.Name
				}
			case engines.Text:
				d.hasText = true
			}
		}
		return d
	}
	switch {
	case s.hybrid:
		if len(exact) == 0 || len(semantic) == 0 {
			return nil, errors.New("valkey: hybrid=on needs Text fields for the exact index and Tag, Numeric or Vector fields for the semantic one (see the fields option)")
		}
		l.indexes = append(l.indexes, def(schema.Name+"-exact", l.prefix, exact, true, true), def(schema.Name, l.prefix, semantic, false, true))
	default:
		for i := 1; i <= s.matching; i++ {
			name := schema.Name
			if i > 1 {
				name = fmt.Sprintf("%s-%d", schema.Name, i)
			}
			l.indexes = append(l.indexes, def(name, l.prefix, indexed, false, true))
		}
	}
	for i := 1; i <= s.idle; i++ {
		l.indexes = append(l.indexes, def(fmt.Sprintf("%s-idle-%d", schema.Name, i), fmt.Sprintf("idle-%d:%s", i, l.prefix), indexed, false, false))
	}
	return l, nil
}

// createArgs is FT.CREATE's arguments for d.
func (d indexDef) createArgs() []string {
	args := []string{d.name, "ON", "HASH", "PREFIX", "1", d.prefix}
	if d.noStop {
		args = append(args, "NOSTOPWORDS")
	}
	args = append(args, "SCHEMA")
	for _, f := range d.fields {
		switch f.Type {
		case engines.Text:
			args = append(args, f.Name, "TEXT")
		case engines.Tag:
			// Stated, not left to the defaults: a tag is the whole value,
			// compared byte for byte, as an Elasticsearch keyword or a
			// Typesense exact filter (the package comment says why).
			args = append(args, f.Name, "TAG", "SEPARATOR", TagSeparator, "CASESENSITIVE")
		case engines.Numeric:
			args = append(args, f.Name, "NUMERIC")
		case engines.Vector:
			args = append(args, f.Name, "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", strconv.Itoa(f.Dim), "DISTANCE_METRIC", "COSINE")
		}
	}
	return args
}

// TagSeparator is the TAG fields' SEPARATOR: valkey-search's default, which
// no tag value of the corpora contains, so each value is one tag.
const TagSeparator = ","

// ownsIndex says whether an index name is one this driver derives from the
// schema name, so that Create can remove what an earlier run with other
// options left (50 idle indexes, say).
func ownsIndex(schemaName, index string) bool {
	if index == schemaName || index == schemaName+"-exact" {
		return true
	}
	rest, ok := strings.CutPrefix(index, schemaName+"-")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, "idle-")
	_, err := strconv.Atoi(rest)
	return err == nil
}

// Create drops the schema's indexes, deletes the documents and creates the
// indexes afresh.
func (e *Engine) Create(ctx context.Context, schema engines.Schema) error {
	l, err := e.set.plan(schema)
	if err != nil {
		return err
	}
	others, err := e.dropIndexes(ctx, schema.Name, l)
	if err != nil {
		return err
	}
	// Every index on the server counts toward search.max-indexes: refuse
	// before creating any rather than fail halfway.
	if lim := int(e.lim.maxIndexes); lim > 0 {
		if err := checkIndexLimit(others+len(l.indexes), lim, fmt.Sprintf("the server's value, %d of them held by other indexes", others)); err != nil {
			return fmt.Errorf("valkey: %w", err)
		}
	}
	prefixes := []string{l.prefix}
	for i := 1; i <= e.set.idle; i++ {
		prefixes = append(prefixes, fmt.Sprintf("idle-%d:%s", i, l.prefix))
	}
	for _, p := range prefixes {
		if err := e.deleteKeys(ctx, p); err != nil {
			return err
		}
	}
	for _, d := range l.indexes {
		if err := e.client.Do(ctx, e.client.B().Arbitrary("FT.CREATE").Args(d.createArgs()...).Build()).Error(); err != nil {
			return fmt.Errorf("valkey: FT.CREATE %s: %w", d.name, classify(err))
		}
	}
	e.mu.Lock()
	e.st = l
	e.mu.Unlock()
	return nil
}

// Attach uses the indexes another process created from the same schema and
// options, touching no key. FT.INFO answers "Index with name '…' not found"
// for an index that is not there (valkey-search's docs/commands/ft.info.md);
// each index Create would make must be there and hold the schema's fields
// with the types Create gives them.
func (e *Engine) Attach(ctx context.Context, schema engines.Schema) error {
	l, err := e.set.plan(schema)
	if err != nil {
		return err
	}
	for _, d := range l.indexes {
		msg, err := e.client.Do(ctx, e.client.B().Arbitrary("FT.INFO").Args(d.name).Build()).ToMessage()
		if isIndexNotFound(err) {
			return fmt.Errorf("valkey: attach: there is no index %s (shard 0 creates it)", d.name)
		}
		if err != nil {
			return fmt.Errorf("valkey: attach: FT.INFO %s: %w", d.name, classify(err))
		}
		v, err := fromMessage(msg)
		var attrs map[string]string
		if err == nil {
			attrs, err = ParseFTAttributes(v)
		}
		if err != nil {
			return fmt.Errorf("valkey: attach: FT.INFO %s: %w", d.name, err)
		}
		for _, f := range d.fields {
			if want := ftType(f.Type); attrs[f.Name] != want {
				return fmt.Errorf("valkey: attach: index %s does not hold field %s as %s, as Create makes it", d.name, f.Name, want)
			}
		}
	}
	e.mu.Lock()
	e.st = l
	e.mu.Unlock()
	return nil
}

// ftType is the FT.CREATE (and FT.INFO) type of a schema field.
func ftType(t engines.FieldType) string {
	return [...]string{engines.Text: "TEXT", engines.Tag: "TAG", engines.Numeric: "NUMERIC", engines.Vector: "VECTOR"}[t]
}

// dropIndexes removes every index FT._LIST shows that this driver derives
// from the schema name, and returns how many other indexes remain. A server
// without the module has no FT._LIST; that is fine only when no index is
// wanted.
func (e *Engine) dropIndexes(ctx context.Context, schemaName string, l *layout) (others int, err error) {
	names, err := e.client.Do(ctx, e.client.B().Arbitrary("FT._LIST").Build()).AsStrSlice()
	if err != nil {
		if len(l.indexes) == 0 && isUnknownCommand(err) {
			return 0, nil
		}
		return 0, fmt.Errorf("valkey: FT._LIST: %w", classify(err))
	}
	for _, n := range names {
		if !ownsIndex(schemaName, n) {
			others++
			continue
		}
		if err := e.client.Do(ctx, e.client.B().Arbitrary("FT.DROPINDEX").Args(n).Build()).Error(); err != nil && !isIndexNotFound(err) {
			return 0, fmt.Errorf("valkey: FT.DROPINDEX %s: %w", n, classify(err))
		}
	}
	return others, nil
}

func isUnknownCommand(err error) bool {
	ve, ok := valkey.IsValkeyErr(err)
	return ok && strings.Contains(strings.ToLower(ve.Error()), "unknown command")
}

// isIndexNotFound: valkey-search's "Index with name '…' not found in
// database N" (a concurrent Create may have dropped it first).
func isIndexNotFound(err error) bool {
	ve, ok := valkey.IsValkeyErr(err)
	return ok && strings.Contains(ve.Error(), "not found")
}

// globEscape quotes SCAN MATCH's special characters.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// deleteKeys UNLINKs every key under prefix, one SCAN page at a time.
func (e *Engine) deleteKeys(ctx context.Context, prefix string) error {
	return e.scanKeys(ctx, prefix, func(keys []string) error {
		return e.client.Do(ctx, e.client.B().Unlink().Key(keys...).Build()).Error()
	})
}

// scanKeys calls fn with each non-empty SCAN page of keys under prefix. It
// gives up after maxScanCalls pages rather than loop without end.
func (e *Engine) scanKeys(ctx context.Context, prefix string, fn func([]string) error) error {
	var cursor uint64
	for range maxScanCalls {
		entry, err := e.client.Do(ctx, e.client.B().Scan().Cursor(cursor).Match(globEscape(prefix)+"*").Count(scanCount).Build()).AsScanEntry()
		if err != nil {
			return fmt.Errorf("valkey: SCAN %s*: %w", prefix, classify(err))
		}
		if len(entry.Elements) > 0 {
			if err := fn(entry.Elements); err != nil {
				return fmt.Errorf("valkey: keys under %s: %w", prefix, classify(err))
			}
		}
		if entry.Cursor == 0 {
			return nil
		}
		cursor = entry.Cursor
	}
	return fmt.Errorf("valkey: SCAN %s* did not finish within %d pages", prefix, maxScanCalls)
}

func (e *Engine) layout() (*layout, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.st == nil {
		return nil, errors.New("valkey: no index: Create was not called")
	}
	return e.st, nil
}

// hsetArgs is the field/value list of doc in schema order, and its size in
// bytes.
func (l *layout) hsetArgs(doc engines.Document) ([]string, int, error) {
	if doc.ID == "" {
		return nil, 0, errors.New("valkey: document has no ID")
	}
	byName := make(map[string]engines.Field, len(doc.Fields))
	for _, f := range doc.Fields {
		if _, ok := l.types[f.Name]; !ok {
			return nil, 0, fmt.Errorf("valkey: document %s: field %q is not in the schema", doc.ID, f.Name)
		}
		byName[f.Name] = f
	}
	args := make([]string, 0, 2*len(l.schema.Fields))
	size := 0
	for _, spec := range l.schema.Fields {
		f, ok := byName[spec.Name]
		var v string
		switch spec.Type {
		case engines.Text, engines.Tag:
			v = f.Text
		case engines.Numeric:
			if !ok || math.IsNaN(f.Number) || math.IsInf(f.Number, 0) {
				return nil, 0, fmt.Errorf("valkey: document %s: numeric field %s is missing or not finite (every write carries the whole field set)", doc.ID, spec.Name)
			}
			v = strconv.FormatFloat(f.Number, 'f', -1, 64)
		case engines.Vector:
			if len(f.Vector) != spec.Dim {
				return nil, 0, fmt.Errorf("valkey: document %s: vector field %s has %d dimensions, the schema %d", doc.ID, spec.Name, len(f.Vector), spec.Dim)
			}
			v = valkey.VectorString32(f.Vector)
		}
		args = append(args, spec.Name, v)
		size += len(spec.Name) + len(v)
	}
	return args, size, nil
}

func (e *Engine) hset(l *layout, doc engines.Document) (valkey.Completed, int, error) {
	args, size, err := l.hsetArgs(doc)
	if err != nil {
		return valkey.Completed{}, 0, err
	}
	b := e.client.B().Hset().Key(l.prefix + doc.ID).FieldValue()
	for i := 0; i < len(args); i += 2 {
		b = b.FieldValue(args[i], args[i+1])
	}
	return b.Build(), size + len(l.prefix) + len(doc.ID), nil
}

// Upsert writes every field of the document in one HSET.
func (e *Engine) Upsert(ctx context.Context, doc engines.Document) error {
	l, err := e.layout()
	if err != nil {
		return err
	}
	cmd, _, err := e.hset(l, doc)
	if err != nil {
		return err
	}
	if err := e.client.Do(ctx, cmd).Error(); err != nil {
		return fmt.Errorf("valkey: upsert %s: %w", doc.ID, classify(err))
	}
	return nil
}

// Batches splits commands of the given sizes into consecutive groups of at
// most limit bytes (a command larger than limit is a group alone).
func Batches(sizes []int, limit int) [][2]int {
	var out [][2]int
	start, total := 0, 0
	for i, s := range sizes {
		if i > start && total+s > limit {
			out = append(out, [2]int{start, i})
			start, total = i, 0
		}
		total += s
	}
	if start < len(sizes) {
		out = append(out, [2]int{start, len(sizes)})
	}
	return out
}

// UpsertBatch writes docs from batchWorkers connections: one HSET at a time
// on each while any index is defined (see the package comment), pipelines of
// at most 16 KiB otherwise.
func (e *Engine) UpsertBatch(ctx context.Context, docs []engines.Document) error {
	l, err := e.layout()
	if err != nil {
		return err
	}
	cmds := make([]valkey.Completed, len(docs))
	sizes := make([]int, len(docs))
	for i, d := range docs {
		if cmds[i], sizes[i], err = e.hset(l, d); err != nil {
			return err
		}
	}
	limit := maxPipelineBytes
	if len(l.indexes) > 0 {
		limit = 0 // every command alone
	}
	groups := Batches(sizes, limit)
	work := make(chan [2]int)
	errs := make(chan error, batchWorkers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range min(batchWorkers, len(groups)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range work {
				for i, r := range e.client.DoMulti(ctx, cmds[g[0]:g[1]]...) {
					if err := r.Error(); err != nil {
						errs <- fmt.Errorf("valkey: upsert %s: %w", docs[g[0]+i].ID, classify(err))
						cancel()
						return
					}
				}
			}
		}()
	}
feed:
	for _, g := range groups {
		select {
		case work <- g:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return ctx.Err()
}

// Delete removes the document's hash.
func (e *Engine) Delete(ctx context.Context, id string) error {
	l, err := e.layout()
	if err != nil {
		return err
	}
	n, err := e.client.Do(ctx, e.client.B().Del().Key(l.prefix+id).Build()).AsInt64()
	if err != nil {
		return fmt.Errorf("valkey: delete %s: %w", id, classify(err))
	}
	if n == 0 {
		return fmt.Errorf("valkey: delete %s: %w", id, engines.ErrNotFound)
	}
	return nil
}

var _ engines.Getter = (*Engine)(nil)

// Get reads the document's hash with HGETALL <prefix><id>: no index is
// involved. An empty reply (no such key) is engines.ErrNotFound. Every
// schema field the hash holds comes back decoded as Upsert wrote it: text
// and tags as they are, numbers parsed, vectors decoded from their
// little-endian float32 bytes (valkey.ToVector32; for the product corpus's
// 1,024 dimensions that is 4 KiB of the reply, read rather than skipped, so
// that a get returns the document whole). Hash fields outside the schema
// are left out.
func (e *Engine) Get(ctx context.Context, id string) (engines.Document, error) {
	l, err := e.layout()
	if err != nil {
		return engines.Document{}, err
	}
	if id == "" {
		return engines.Document{}, errors.New("valkey: get: empty document ID")
	}
	hash, err := e.client.Do(ctx, e.client.B().Hgetall().Key(l.prefix+id).Build()).AsStrMap()
	if err != nil {
		return engines.Document{}, fmt.Errorf("valkey: get %s: %w", id, classify(err))
	}
	if len(hash) == 0 {
		return engines.Document{}, fmt.Errorf("valkey: get %s: %w", id, engines.ErrNotFound)
	}
	doc, err := l.document(id, hash)
	if err != nil {
		return engines.Document{}, fmt.Errorf("valkey: get %s: %w", id, err)
	}
	return doc, nil
}

// document decodes a hash Upsert wrote (hsetArgs' encoding, reversed).
func (l *layout) document(id string, hash map[string]string) (engines.Document, error) {
	doc := engines.Document{ID: id, Fields: make([]engines.Field, 0, len(l.schema.Fields))}
	for _, spec := range l.schema.Fields {
		v, ok := hash[spec.Name]
		if !ok {
			continue
		}
		f := engines.Field{Name: spec.Name}
		switch spec.Type {
		case engines.Text, engines.Tag:
			f.Text = v
		case engines.Numeric:
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return engines.Document{}, fmt.Errorf("numeric field %s holds %.40q, not a number", spec.Name, v)
			}
			f.Number = n
		case engines.Vector:
			if len(v) != 4*spec.Dim {
				return engines.Document{}, fmt.Errorf("vector field %s holds %d bytes, not %d float32s", spec.Name, len(v), spec.Dim)
			}
			f.Vector = valkey.ToVector32(v)
		}
		doc.Fields = append(doc.Fields, f)
	}
	return doc, nil
}

// chooseIndex picks the first write-side index that has every field the
// query touches.
func (l *layout) chooseIndex(q engines.Query) (indexDef, error) {
	need := map[string]bool{}
	for _, f := range q.Filters {
		need[f.Field] = true
	}
	if q.Field != "" {
		need[q.Field] = true
	}
	for _, d := range l.writeSide() {
		ok := (q.Vector == nil || d.vector != "") && (q.Text == "" || q.Field != "" || d.hasText)
		for f := range need {
			if _, has := d.types[f]; !has {
				ok = false
			}
		}
		if ok {
			return d, nil
		}
	}
	if len(l.writeSide()) == 0 {
		return indexDef{}, fmt.Errorf("valkey: search without an index (matching_indexes=0): %w", engines.ErrUnsupported)
	}
	return indexDef{}, fmt.Errorf("valkey: no index of this layout has every field the query uses: %w", engines.ErrUnsupported)
}

// searchPlan is what Search sends: one or two query strings.
type searchPlan struct {
	index   string
	queries []string // all-words then any-word, or one
	vector  []float32
	empty   bool // nothing can match
}

// searchPlan builds the FT.SEARCH query strings for q on layout l.
func (l *layout) searchPlan(q engines.Query, tiered bool) (searchPlan, error) {
	d, err := l.chooseIndex(q)
	if err != nil {
		return searchPlan{}, err
	}
	p := searchPlan{index: d.name, vector: q.Vector}
	clauses, err := FilterClauses(d.types, q.Filters)
	if err != nil {
		return p, err
	}
	var words []string
	switch {
	case q.Field != "":
		c, ok, err := FieldClause(d.types, q.Field, q.Text)
		if err != nil {
			return p, err
		}
		if !ok {
			p.empty = true
			return p, nil
		}
		clauses = append(clauses, c)
	case q.Text != "":
		if words = Words(q.Text, d.noStop); len(words) == 0 {
			p.empty = true
			return p, nil
		}
	}
	if q.Vector != nil {
		spec := d.types[d.vector]
		if len(q.Vector) != spec.Dim {
			return p, fmt.Errorf("valkey: query vector has %d dimensions, field %s %d", len(q.Vector), d.vector, spec.Dim)
		}
		if len(words) > 0 {
			clauses = append(clauses, group(OrQuery(words), len(words)))
		}
		p.queries = []string{joinFilter(clauses) + KNNClause(d.vector, q.K)}
		return p, nil
	}
	if len(words) > 1 && tiered {
		p.queries = append(p.queries, joinFilter(append(slices.Clone(clauses), AndQuery(words))))
	}
	if len(words) > 0 {
		clauses = append(clauses, group(OrQuery(words), len(words)))
	}
	p.queries = append(p.queries, joinFilter(clauses))
	return p, nil
}

func (e *Engine) searchCmd(index, query string, k int, vec []float32) valkey.Completed {
	args := []string{index, query, "NOCONTENT", "LIMIT", "0", strconv.Itoa(k)}
	if vec != nil {
		args = append(args, "PARAMS", "2", "vec", valkey.VectorString32(vec))
	}
	args = append(args, "DIALECT", "2")
	return e.client.B().Arbitrary("FT.SEARCH").Args(args...).Build()
}

// Search runs q; see the package comment for the query it sends.
func (e *Engine) Search(ctx context.Context, q engines.Query) (engines.Hits, error) {
	if q.K < 1 || q.K > maxK {
		return engines.Hits{}, fmt.Errorf("valkey: k=%d is outside 1..%d: %w", q.K, maxK, engines.ErrUnsupported)
	}
	l, err := e.layout()
	if err != nil {
		return engines.Hits{}, err
	}
	p, err := l.searchPlan(q, e.set.tiered)
	if err != nil || p.empty {
		return engines.Hits{Total: 0}, err
	}
	cmds := make([]valkey.Completed, len(p.queries))
	for i, s := range p.queries {
		cmds[i] = e.searchCmd(p.index, s, q.K, p.vector)
	}
	var hits engines.Hits
	seen := map[string]bool{}
	for _, r := range e.client.DoMulti(ctx, cmds...) {
		msg, err := r.ToMessage()
		if err != nil {
			return engines.Hits{}, fmt.Errorf("valkey: search %s: %w", p.index, classify(err))
		}
		v, err := fromMessage(msg)
		if err != nil {
			return engines.Hits{}, fmt.Errorf("valkey: search %s: %w", p.index, err)
		}
		total, keys, err := ParseSearchKeys(v)
		if err != nil {
			return engines.Hits{}, fmt.Errorf("valkey: search %s: %w", p.index, quote.Unreadable([]byte(v.String()), err))
		}
		hits.Total = total // the last (widest) search's count
		if p.vector == nil && e.lim.maxResults > 0 && total >= e.lim.maxResults {
			// The count stopped at the cap (serverLimits.maxResults): at
			// least this many match. ≥, not =: a cluster's coordinator
			// adds its shards' capped counts.
			e.saturated.Add(1)
		}
		for _, k := range keys {
			id, ok := strings.CutPrefix(k, l.prefix)
			if !ok {
				return engines.Hits{}, fmt.Errorf("valkey: search %s: key %q is not under prefix %q", p.index, k, l.prefix)
			}
			if !seen[id] && len(hits.IDs) < q.K {
				seen[id] = true
				hits.IDs = append(hits.IDs, id)
			}
		}
	}
	return hits, nil
}

func (e *Engine) ftInfo(ctx context.Context, names []string) ([]FTInfo, error) {
	cmds := make([]valkey.Completed, len(names))
	for i, n := range names {
		cmds[i] = e.client.B().Arbitrary("FT.INFO").Args(n).Build()
	}
	out := make([]FTInfo, len(names))
	for i, r := range e.client.DoMulti(ctx, cmds...) {
		msg, err := r.ToMessage()
		if err != nil {
			return nil, fmt.Errorf("valkey: FT.INFO %s: %w", names[i], classify(err))
		}
		v, err := fromMessage(msg)
		if err == nil {
			out[i], err = ParseFTInfo(v)
		}
		if err != nil {
			return nil, fmt.Errorf("valkey: FT.INFO %s: %w", names[i], err)
		}
	}
	return out, nil
}

// Count is FT.INFO num_docs of the first index on the written prefix, or,
// with no index, the number of keys under the prefix (SCAN).
func (e *Engine) Count(ctx context.Context) (int64, error) {
	l, err := e.layout()
	if err != nil {
		return 0, err
	}
	if ws := l.writeSide(); len(ws) > 0 {
		infos, err := e.ftInfo(ctx, []string{ws[0].name})
		if err != nil {
			return 0, err
		}
		return infos[0].NumDocs, nil
	}
	var n int64
	err = e.scanKeys(ctx, l.prefix, func(keys []string) error { n += int64(len(keys)); return nil })
	return n, err
}

func (e *Engine) infoText(ctx context.Context, section string) (string, error) {
	text, err := e.client.Do(ctx, e.client.B().Info().Section(section).Build()).ToString()
	if err != nil {
		return "", fmt.Errorf("valkey: INFO %s: %w", section, classify(err))
	}
	return text, nil
}

func (e *Engine) info(ctx context.Context, section string) (map[string]string, error) {
	text, err := e.infoText(ctx, section)
	if err != nil {
		return nil, err
	}
	return ParseInfo(text)
}

// Version is "Valkey <valkey_version>, valkey-search <module version>".
func (e *Engine) Version(ctx context.Context) (string, error) {
	server, err := e.info(ctx, "server")
	if err != nil {
		return "", err
	}
	v, err := ServerVersion(server)
	if err != nil {
		return "", fmt.Errorf("valkey: %w", err)
	}
	modules, err := e.infoText(ctx, "modules")
	if err != nil {
		return "", err
	}
	sv, ok, err := SearchModuleVersion(modules)
	switch {
	case err != nil:
		return "", fmt.Errorf("valkey: %w", err)
	case !ok:
		return "Valkey " + v + " (no search module)", nil
	}
	out := "Valkey " + v + ", valkey-search " + sv
	if e.lim.maxResults > 0 || e.lim.maxIndexes > 0 {
		// The settings that change what a search's total means and how
		// many indexes a setup may hold, as the server had them at Open.
		out += fmt.Sprintf(" (max-nonvector-search-results-fetched %d, max-indexes %d)", e.lim.maxResults, e.lim.maxIndexes)
	}
	return out, nil
}

// Stats samples the mutation queues of this driver's indexes and the
// module's INFO search fields (see the package comment).
func (e *Engine) Stats(ctx context.Context) (map[string]float64, error) {
	l, err := e.layout()
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	if len(l.indexes) > 0 {
		names := make([]string, len(l.indexes))
		for i, d := range l.indexes {
			names[i] = d.name
		}
		infos, err := e.ftInfo(ctx, names)
		if err != nil {
			return nil, err
		}
		var sum, most, idle int64
		for i, d := range l.indexes {
			q := infos[i].MutationQueueSize
			if !d.writeSide {
				idle += q
				continue
			}
			sum += q
			most = max(most, q)
		}
		out["mutation_queue_size"] = float64(sum)
		out["mutation_queue_size_max"] = float64(most)
		if e.set.idle > 0 {
			out["mutation_queue_size_idle"] = float64(idle)
		}
	}
	info, err := e.info(ctx, "search")
	if err != nil {
		return nil, err
	}
	st, err := SearchStats(info)
	if err != nil {
		return nil, fmt.Errorf("valkey: %w", err)
	}
	for k, v := range st {
		out[k] = v
	}
	if e.lim.maxResults > 0 {
		out[SaturatedStat] = float64(e.saturated.Load())
		out[MaxResultsStat] = float64(e.lim.maxResults)
	}
	if len(st) == 0 {
		return out, nil // no search module: no pools to read
	}
	threads, err := e.client.Do(ctx, e.client.B().ConfigGet().Parameter("search.reader-threads", "search.writer-threads").Build()).AsStrMap()
	if err != nil {
		return nil, fmt.Errorf("valkey: CONFIG GET search.*-threads: %w", classify(err))
	}
	for name, stat := range map[string]string{"search.reader-threads": "reader_threads", "search.writer-threads": "writer_threads"} {
		if raw, ok := threads[name]; ok {
			n, err := strconv.Atoi(raw)
			if err != nil {
				return nil, fmt.Errorf("valkey: CONFIG GET %s = %q is not a number", name, raw)
			}
			out[stat] = float64(n)
		}
	}
	return out, nil
}

// Stats names of the saturated totals (the report reads them by these
// names): the searches so far whose total reached
// max-nonvector-search-results-fetched, and that setting.
const (
	SaturatedStat  = "search_total_saturated"
	MaxResultsStat = "max_nonvector_results"
)

// Close closes the connections; the keys and indexes stay.
func (e *Engine) Close() error {
	e.client.Close()
	return nil
}

// IndexNames lists the indexes Create made, write-side first: for tests and
// for result provenance.
func (e *Engine) IndexNames() []string {
	l, err := e.layout()
	if err != nil {
		return nil
	}
	names := make([]string, len(l.indexes))
	for i, d := range l.indexes {
		names[i] = d.name
	}
	sort.Strings(names)
	return names
}

// classify maps server replies onto the runner's classes.
func classify(err error) error {
	ve, ok := valkey.IsValkeyErr(err)
	if !ok {
		return err
	}
	msg := ve.Error()
	upper := strings.ToUpper(msg)
	switch {
	case strings.HasPrefix(upper, "OOM"), strings.HasPrefix(upper, "BUSY"), strings.HasPrefix(upper, "LOADING"),
		strings.Contains(upper, "MAX NUMBER OF CLIENTS"), strings.Contains(msg, "queue depth exceeded"):
		return fmt.Errorf("%w: %s", engines.ErrOverloaded, msg)
	case strings.Contains(strings.ToLower(msg), "timeout"), strings.Contains(strings.ToLower(msg), "timed out"):
		return fmt.Errorf("%w: %s", engines.ErrTimeout, msg)
	}
	return err
}
