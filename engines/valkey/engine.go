package valkey

import (
	"context"
	"errors"
	"fmt"
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

// Tunables documented in the package comment.
const (
	connBuffer       = 64 << 10
	batchWorkers     = 32
	maxPipelineBytes = 16 << 10
	maxK             = 10000
	scanCount        = 1000
	maxScanCalls     = 100_000 // bounds the key sweep at ~100M keys
)

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
// with the types Create gives them, a vector with the schema's metric (an
// index of another would answer every KNN search by it).
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
		v, err := msg.ToAny()
		var attrs map[string]FTAttribute
		if err == nil {
			attrs, err = ParseFTAttributes(v)
		}
		if err != nil {
			return fmt.Errorf("valkey: attach: FT.INFO %s: %w", d.name, err)
		}
		for _, f := range d.fields {
			if want := ftType(f.Type); attrs[f.Name].Type != want {
				return fmt.Errorf("valkey: attach: index %s does not hold field %s as %s, as Create makes it", d.name, f.Name, want)
			}
			if want := distanceMetrics[f.Metric]; f.Type == engines.Vector && attrs[f.Name].DistanceMetric != want {
				return fmt.Errorf("valkey: attach: index %s ranks field %s by DISTANCE_METRIC %s, the schema's metric (%s) is %s", d.name, f.Name, attrs[f.Name].DistanceMetric, f.Metric, want)
			}
		}
	}
	e.mu.Lock()
	e.st = l
	e.mu.Unlock()
	return nil
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
	switch {
	case errors.Is(err, engines.ErrUnsupported):
		// The refusal CheckQuery gives, under the driver's name.
		return engines.Hits{}, fmt.Errorf("valkey: %w", err)
	case err != nil || p.empty:
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
		v, err := msg.ToAny()
		if err != nil {
			return engines.Hits{}, fmt.Errorf("valkey: search %s: %w", p.index, err)
		}
		total, keys, err := ParseSearchKeys(v)
		if err != nil {
			return engines.Hits{}, fmt.Errorf("valkey: search %s: %w", p.index, quote.Unreadable([]byte(render(v)), err))
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
		v, err := msg.ToAny()
		if err == nil {
			out[i], err = ParseFTInfo(v)
		}
		if err != nil {
			return nil, fmt.Errorf("valkey: FT.INFO %s: %w", names[i], err)
		}
	}
	return out, nil
}

// Refresh (engines.Refresher) returns when every index on the written
// prefix has applied the writes returned before it: FT.INFO's
// mutation_queue_size, which a writer thread lowers once it has applied a
// write (src/index_schema.cc ProcessSingleMutationAsync, 1.2.1), is 0 on
// each. Under one index a returned write is already applied; under
// several it may not be (settings.writeMode), and pre-population must not
// end while the indexes are still catching up.
func (e *Engine) Refresh(ctx context.Context) error {
	l, err := e.layout()
	if err != nil {
		return err
	}
	ws := l.writeSide()
	names := make([]string, len(ws))
	for i, d := range ws {
		names[i] = d.name
	}
	for len(names) > 0 {
		infos, err := e.ftInfo(ctx, names)
		if err != nil {
			return err
		}
		busy := names[:0]
		for i, in := range infos {
			if in.MutationQueueSize > 0 {
				busy = append(busy, names[i])
			}
		}
		if names = busy; len(names) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("valkey: waiting for %d indexes to apply their writes: %w", len(names), ctx.Err())
		case <-time.After(refreshPoll):
		}
	}
	return nil
}

// refreshPoll is how often Refresh asks again: a writer thread applies a
// write in microseconds, so the first answer is nearly always 0.
const refreshPoll = 5 * time.Millisecond

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
		if err := e.indexStats(ctx, l, out); err != nil {
			return nil, err
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
	if err := e.threadStats(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// indexStats puts in out the FT.INFO figures of l's indexes: the mutation
// queues of the write side (summed and the longest), the idle indexes'
// queues apart, since no write of the run reaches them, and the indexing
// failures and backfill progress.
func (e *Engine) indexStats(ctx context.Context, l *layout, out map[string]float64) error {
	infos, err := e.ftInfo(ctx, l.indexNames())
	if err != nil {
		return err
	}
	var sum, most, idle, failures, backfilling int64
	done := 1.0
	for i, d := range l.indexes {
		in := infos[i]
		if in.Backfill {
			backfilling++
		}
		done = min(done, in.BackfillDone)
		q := in.MutationQueueSize
		if !d.writeSide {
			idle += q
			continue
		}
		sum += q
		most = max(most, q)
		failures += in.IndexingFailures
	}
	out[engines.StatMutationQueue] = float64(sum)
	out[engines.StatMutationQueueMax] = float64(most)
	out[IndexingFailuresStat] = float64(failures)
	out[BackfillStat] = float64(backfilling)
	out[BackfillDoneStat] = done
	if e.set.idle > 0 {
		out[engines.StatMutationQueueIdle] = float64(idle)
	}
	return nil
}

// threadStats puts in out the sizes of the module's reader and writer
// pools, which bound how many searches and index writes run at once.
func (e *Engine) threadStats(ctx context.Context, out map[string]float64) error {
	threads, err := e.client.Do(ctx, e.client.B().ConfigGet().Parameter("search.reader-threads", "search.writer-threads").Build()).AsStrMap()
	if err != nil {
		return fmt.Errorf("valkey: CONFIG GET search.*-threads: %w", classify(err))
	}
	for name, stat := range map[string]string{"search.reader-threads": engines.StatReaderThreads, "search.writer-threads": engines.StatWriterThreads} {
		if raw, ok := threads[name]; ok {
			n, err := strconv.Atoi(raw)
			if err != nil {
				return fmt.Errorf("valkey: CONFIG GET %s = %q is not a number", name, raw)
			}
			out[stat] = float64(n)
		}
	}
	return nil
}

// Stats names of FT.INFO's other figures, over this driver's indexes:
// hash_indexing_failures summed over the indexes on the written prefix
// (hashes a field of which the index could not take: a price that is no
// number, a vector of the wrong length), how many indexes are still
// backfilling (scanning the keys that were there when they were created),
// and the least backfill_complete_percent among them, a fraction from 0 to
// 1 as the module reports it.
const (
	IndexingFailuresStat = "hash_indexing_failures"
	BackfillStat         = "backfill_in_progress"
	BackfillDoneStat     = "backfill_complete_percent"
)

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
	names := l.indexNames()
	sort.Strings(names)
	return names
}
