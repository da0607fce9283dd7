package valkeyfake

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// Limits of valkey-search 1.2: search.query-string-bytes' and
// search.max-vector-knn's defaults.
const (
	maxQueryBytes = 10240
	maxKNN        = 10000
)

// searchArgs are FT.SEARCH's options.
type searchArgs struct {
	noContent   bool
	offset, num int
	params      map[string]string
}

func cmdFtSearch(s *Server, c *conn, args []string) {
	if !arity(c, args, len(args) >= 3) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ix := s.indexLocked(c, args[1])
	if ix == nil {
		return
	}
	keys, sa, err := s.searchLocked(ix, args)
	if err != nil {
		c.w.err(err.Error())
		return
	}
	// The total is every key found, before LIMIT.
	reply := list{len(keys)}
	for _, k := range keys[min(sa.offset, len(keys)):min(sa.offset+sa.num, len(keys))] {
		reply = append(reply, k)
	}
	c.w.value(reply)
}

// errContent answers a search that asks for the documents' fields: the
// driver reads keys only (NOCONTENT), and the fake models no other reply.
var errContent = errors.New("valkeyfake: only FT.SEARCH … NOCONTENT is modelled; the driver sends nothing else")

// parseSearchArgs parses the options after the query string that the driver
// sends: NOCONTENT, LIMIT offset num (two unsigned numbers, not otherwise
// bounded: src/query/search.h LimitParameter), PARAMS n name value… and
// DIALECT 2, the one the documentation supports. A word SearchParser does
// not know is an unexpected argument (vmsdk/src/command_parser.h
// KeyValueParser::Parse, 1.2.1).
func parseSearchArgs(args []string) (searchArgs, error) {
	sa := searchArgs{num: 10, params: map[string]string{}}
	it := &argIter{args: args, pos: 3}
	for it.more() {
		switch {
		case it.match("NOCONTENT"):
			sa.noContent = true
		case it.match("LIMIT"):
			for _, dst := range []*int{&sa.offset, &sa.num} {
				v := it.next()
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					// A KeyValueParser's error (vmsdk/src/command_parser.h).
					return sa, fmt.Errorf("Error parsing value for the parameter `LIMIT` - `%s` is outside acceptable bounds", v)
				}
				*dst = int(min(n, 1<<40))
			}
		case it.match("PARAMS"):
			n, _ := strconv.Atoi(it.next())
			for range max(n, 0) / 2 {
				k := it.next()
				sa.params[k] = it.next()
			}
		case it.match("DIALECT"):
			if it.next() != "2" {
				return sa, errors.New("valkeyfake: only DIALECT 2 is modelled")
			}
		default:
			return sa, fmt.Errorf("Unexpected argument `%s`", it.args[it.pos])
		}
	}
	return sa, nil
}

func (sa *searchArgs) param(ref string) (string, error) {
	if !strings.HasPrefix(ref, "$") {
		return ref, nil
	}
	v, ok := sa.params[ref[1:]]
	if !ok {
		return "", fmt.Errorf("Parameter %s not found.", ref[1:])
	}
	return v, nil
}

// searchLocked runs FT.SEARCH on ix. s.mu is held.
func (s *Server) searchLocked(ix *index, args []string) ([]string, searchArgs, error) {
	sa, pred, k, err := parseSearch(ix, args)
	if err != nil {
		return nil, sa, err
	}
	if k != nil && k.ef > 0 {
		s.knob.Saw(k.ef)
	}
	var keys []string
	for key, d := range ix.docs {
		if pred.eval(d) {
			keys = append(keys, key)
		}
	}
	if k != nil {
		return k.nearest(ix, keys), sa, nil
	}
	// No relevance ranking: an order unrelated to the query or to
	// insertion, so that nothing can lean on it.
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(keyHash(a), keyHash(b)) })
	// src/query/search.cc DoSearchNonVector: the results appender stops
	// once max-nonvector-search-results-fetched keys are collected, before
	// LIMIT is applied, and the reply's total is the number collected: a
	// capped count, not the number of matches.
	if limit, err := strconv.Atoi(s.config["search.max-nonvector-search-results-fetched"]); err == nil && len(keys) > limit {
		keys = keys[:limit]
	}
	return keys, sa, nil
}

// parseSearch parses and checks FT.SEARCH's arguments in the module's
// order: the options, the query's length, its filter, its KNN clause and
// the parameters it refers to, and last the reply the fake can give
// (errContent). k is nil for no KNN clause.
func parseSearch(ix *index, args []string) (sa searchArgs, pred predicate, k *knn, err error) {
	if sa, err = parseSearchArgs(args); err != nil {
		return sa, nil, nil, err
	}
	q := args[2]
	if len(q) > maxQueryBytes {
		return sa, nil, nil, fmt.Errorf("Query string is too long, max length is %d bytes.", maxQueryBytes)
	}
	filter, vector, isKNN := strings.Cut(q, "=>")
	if pred, err = parseFilter(ix, filter); err != nil {
		return sa, nil, nil, fmt.Errorf("Invalid filter expression: `%s`. %w", strings.TrimSpace(filter), err)
	}
	if _, all := pred.(allPred); all && !isKNN {
		// Match-all with no vector part is no query (src/query/search.cc
		// SearchParameters::PreParseQueryString, 1.2.1).
		return sa, nil, nil, errors.New("Invalid query string syntax")
	}
	if isKNN {
		if k, err = parseKNN(ix, vector); err != nil {
			return sa, nil, nil, fmt.Errorf("Error parsing vector similarity parameters: `%s`. %w", strings.TrimSpace(vector), err)
		}
		if err = k.resolve(&sa); err != nil {
			return sa, nil, nil, fmt.Errorf("Error parsing vector similarity parameters: %w", err)
		}
		if k.k < 1 || k.k > maxKNN {
			return sa, nil, nil, fmt.Errorf("KNN parameter must be a positive integer greater than 0 and cannot exceed %d.", maxKNN)
		}
		if err := checkEFRuntime(k); err != nil {
			return sa, nil, nil, err
		}
	}
	if !sa.noContent {
		return sa, nil, nil, errContent
	}
	return sa, pred, k, nil
}

// resolve reads the clause's parameters: k, the query vector (of the
// field's byte length), and EF_RUNTIME's and AS's, which must exist.
func (k *knn) resolve(sa *searchArgs) error {
	kStr, err := sa.param(k.kStr)
	if err != nil {
		return err
	}
	n, err := strconv.ParseUint(kStr, 10, 31)
	if err != nil {
		return fmt.Errorf("`%s` is not a valid numeric value", kStr)
	}
	k.k = int(n)
	if k.efStr != "" {
		ef, err := sa.param(k.efStr)
		if err != nil {
			return err
		}
		if k.ef, err = efRuntime(ef); err != nil {
			return err
		}
	}
	blob, err := sa.param(k.blobStr)
	if err != nil {
		return err
	}
	if _, err := sa.param(k.as); k.as != "" && err != nil {
		return err
	}
	if len(blob) != 4*k.field.dim {
		return fmt.Errorf("query vector blob size (%d) does not match index's expected size (%d).", len(blob), 4*k.field.dim)
	}
	k.vec = decodeVector(blob)
	return nil
}

// maxEFRuntime is search.max-vector-ef-runtime's default and bound
// (valkey-search 1.2.1 src/commands/ft_create_parser.cc, kMaxEfRuntime).
const maxEFRuntime = 1_000_000

// efRuntime reads EF_RUNTIME's value as valkey-search 1.2.1 parses it:
// an unsigned 32-bit number (vmsdk's ToNumeric<uint32_t>).
func efRuntime(v string) (int, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange), err == nil && (n < 0 || n > math.MaxUint32):
		return 0, fmt.Errorf("`%s` is outside acceptable bounds", v)
	case err != nil:
		return 0, fmt.Errorf("`%s` is not a valid numeric value", v)
	}
	return int(n), nil
}

// checkEFRuntime holds a parsed EF_RUNTIME to 1 … max-vector-ef-runtime, a
// check the module makes after parsing, as it does KNN's bound
// (src/commands/ft_search_parser.cc, VerifyQueryString): its error is
// not one of the parser's.
func checkEFRuntime(k *knn) error {
	if k.efStr == "" || k.ef >= 1 && k.ef <= maxEFRuntime {
		return nil
	}
	side := "above maximum"
	if k.ef < 1 {
		side = "below minimum"
	}
	return fmt.Errorf("Invalid range: Value %s; `EF_RUNTIME` must be a positive integer greater than 0 and cannot exceed %d.", side, maxEFRuntime)
}

// nearest is the k keys nearest the query vector by the field's metric,
// nearest first, among keys (those the filter passed) that hold a vector.
func (k *knn) nearest(ix *index, keys []string) []string {
	scores := map[string]float64{}
	var cands []string
	for _, key := range keys {
		if v, ok := ix.docs[key][k.field.name].([]float32); ok {
			scores[key] = distance(k.field.metric, k.vec, v)
			cands = append(cands, key)
		}
	}
	slices.SortFunc(cands, func(a, b string) int { return cmp.Or(cmp.Compare(scores[a], scores[b]), strings.Compare(a, b)) })
	return cands[:min(k.k, len(cands))]
}

// distance is the module's distance between the query vector q and a
// stored one v, the smaller the nearer (valkey-search 1.2.1,
// src/indexes/vector_base.cc CreateSpace and VectorBase::Init): COSINE and
// IP are hnswlib's InnerProductSpace, 1 − q·v
// (third_party/hnswlib/space_ip.h, InnerProductDistance; simsimd.h
// InnerProductDistanceSimsimd alike), COSINE on both vectors normalized
// first (normalize_; a zero vector stays zero, so its distance is 1) and IP
// on them as they are; L2 is L2Space, the squared Euclidean distance
// (space_l2.h, L2Sqr). The fake sums in float64, the module in float32:
// only a near tie could be ordered otherwise.
func distance(metric string, q, v []float32) float64 {
	switch metric {
	case "IP":
		return 1 - fakekit.Dot(q, v)
	case "L2":
		return fakekit.L2Squared(q, v)
	}
	return 1 - fakekit.Cosine(q, v)
}

// keyHash orders unranked results: an order unrelated to the query or to
// insertion.
func keyHash(k string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(k))
	return h.Sum64()
}
