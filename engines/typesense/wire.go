package typesense

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/quote"
	"github.com/typesense/typesense-go/v3/typesense/api"
	"github.com/typesense/typesense-go/v3/typesense/api/pointer"
)

// Request bodies and paths, and answer parsing: pure functions, no
// network. The paths of the calls a run repeats are the ones the generated
// API's request constructors build (its path escaping and query encoding),
// so that the fast path sends what the client would.

// MaxK is the most hits Typesense returns for one search (per_page's limit).
const MaxK = 250

// document is the JSON object Typesense stores: the ID as a string and
// every schema field (a field the collection does not declare is stored,
// not indexed).
func (st state) document(doc engines.Document) (map[string]any, error) {
	m := make(map[string]any, len(st.fields)+1)
	m["id"] = doc.ID
	for _, f := range st.fields {
		i := slices.IndexFunc(doc.Fields, func(df engines.Field) bool { return df.Name == f.Name })
		switch {
		case (f.Type == engines.Numeric || f.Type == engines.Vector) && i < 0:
			return nil, fmt.Errorf("typesense: document %s has no value for %s field %s", doc.ID, f.Type, f.Name)
		case f.Type == engines.Numeric:
			m[f.Name] = doc.Fields[i].Number
		case f.Type == engines.Vector:
			m[f.Name] = doc.Fields[i].Vector
		default:
			m[f.Name] = doc.Text(f.Name)
		}
	}
	return m, nil
}

// searchRequest is one search as it is sent: a GET …/documents/search with
// get's parameters, or, for a query with a vector, POST /multi_search with
// the one search multi holds (a vector does not fit in a GET's query string).
type searchRequest struct {
	get   *api.SearchCollectionParams
	multi *api.MultiSearchSearchesParameter
}

// search builds the request for q, after the checks of its shape.
func (st state) search(q engines.Query) (searchRequest, error) {
	if err := st.lay.checkQuery(q); err != nil {
		return searchRequest{}, fmt.Errorf("typesense: %w", err)
	}
	if q.K < 0 || q.K > MaxK {
		return searchRequest{}, fmt.Errorf("typesense: k=%d: Typesense returns 0 to %d hits a search", q.K, MaxK)
	}
	filterBy := ""
	if len(q.Filters) > 0 {
		f, err := st.filterBy(q.Filters)
		if err != nil {
			return searchRequest{}, err
		}
		filterBy = f
	}
	if q.Vector != nil {
		return st.vectorSearch(q, filterBy), nil
	}
	if slices.Contains(st.lay.exact, q.Field) {
		// The whole value, verbatim: no tokenizer between the SKU and the
		// match (collections.md: facet fields are indexed verbatim).
		if strings.Contains(q.Text, "`") {
			return searchRequest{}, fmt.Errorf("typesense: lookup %q: a backtick cannot be quoted in filter_by", q.Text)
		}
		filterBy = joinFilters(fmt.Sprintf("%s:=`%s`", q.Field, q.Text), filterBy)
		return searchRequest{get: &api.SearchCollectionParams{
			Q:             pointer.String("*"),
			FilterBy:      pointer.String(filterBy),
			PerPage:       pointer.Int(q.K),
			IncludeFields: pointer.String("id"),
		}}, nil
	}
	queryBy := strings.Join(st.lay.text, ",")
	if q.Field != "" {
		queryBy = q.Field
	}
	p := &api.SearchCollectionParams{
		Q:                   pointer.String(q.Text),
		QueryBy:             pointer.String(queryBy),
		PerPage:             pointer.Int(q.K),
		NumTypos:            pointer.String("0"),
		TypoTokensThreshold: pointer.Int(0),
		Prefix:              pointer.String("false"),
		IncludeFields:       pointer.String("id"),
	}
	if q.Field != "" {
		// A lookup matches every word or nothing: Typesense's default
		// drop_tokens_threshold (1) would drop words from the right
		// while no document holds them all.
		p.DropTokensThreshold = pointer.Int(0)
	}
	if filterBy != "" {
		p.FilterBy = pointer.String(filterBy)
	}
	return searchRequest{get: p}, nil
}

// vectorSearch is a kNN (q "*"), filtered by filterBy when it is not
// empty, or, with q.Text, a hybrid search: the keyword search over every
// indexed text field and the kNN, which Typesense fuses by rank.
func (st state) vectorSearch(q engines.Query, filterBy string) searchRequest {
	s := api.MultiSearchCollectionParameters{
		Collection:    pointer.String(st.coll),
		Q:             pointer.String("*"),
		VectorQuery:   pointer.String(vectorQuery(st.lay.vector, q.Vector, q.K, q.Knob)),
		PerPage:       pointer.Int(q.K),
		IncludeFields: pointer.String("id"),
	}
	if q.Text != "" {
		s.Q = pointer.String(q.Text)
		s.QueryBy = pointer.String(strings.Join(st.lay.text, ","))
		s.NumTypos = pointer.String("0")
		s.TypoTokensThreshold = pointer.Int(0)
		s.Prefix = pointer.String("false")
		// The keyword half needs every word: Typesense's vector-search
		// documentation asks for drop_tokens_threshold 0 in hybrid
		// searches, which would otherwise search again with fewer words.
		s.DropTokensThreshold = pointer.Int(0)
	}
	if filterBy != "" {
		s.FilterBy = pointer.String(filterBy)
	}
	return searchRequest{multi: &api.MultiSearchSearchesParameter{Searches: []api.MultiSearchCollectionParameters{s}}}
}

// vectorQuery is vector_query: field:([v1,v2,…], k:K), with ", ef:EF"
// when the query sets the knob. Each component is written in plain
// decimal, the shortest that reads back as the same float32.
func vectorQuery(field string, v []float32, k, ef int) string {
	b := make([]byte, 0, len(field)+len(v)*12+16)
	b = append(b, field...)
	b = append(b, ":(["...)
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'f', -1, 32)
	}
	b = append(b, "], k:"...)
	b = strconv.AppendInt(b, int64(k), 10)
	if ef > 0 {
		b = append(b, ", ef:"...)
		b = strconv.AppendInt(b, int64(ef), 10)
	}
	return string(append(b, ')'))
}

// Knob is vector_query's ef: the candidate list of the HNSW search, which
// searches with max(ef, k) (Typesense 29.0 include/vector_query_ops.h:
// ef = 10; its hnswlib's searchKnn; the parser takes any positive 32-bit
// value). The driver always sends k, so a value below it changes nothing
// rather than falling back to Typesense's k of 100.
var Knob = engines.Knob{
	Name: "ef", Min: 1, Max: math.MaxUint32, Default: "10 (the search uses max(ef, k))",
	Trades: "a longer candidate list finds more of the true nearest neighbours and visits more of the graph per search",
	Source: "Typesense 29.0 include/vector_query_ops.h (ef = 10), src/vector_query_ops.cpp (its parse: a positive 32-bit integer)",
}

func joinFilters(a, b string) string {
	if b == "" {
		return a
	}
	return a + " && " + b
}

// filterBy renders filters in Typesense's filter_by syntax (the fields
// are the collection's tag and numeric ones: checkQuery saw to it).
func (st state) filterBy(filters []engines.Filter) (string, error) {
	var clauses []string
	for _, f := range filters {
		switch st.lay.filters[f.Field] {
		case engines.Tag:
			if strings.Contains(f.Tag, "`") {
				return "", fmt.Errorf("typesense: tag %q: a backtick cannot be quoted in filter_by", f.Tag)
			}
			clauses = append(clauses, fmt.Sprintf("%s:=`%s`", f.Field, f.Tag))
		case engines.Numeric:
			c, err := rangeClause(f)
			if err != nil {
				return "", err
			}
			if c != "" {
				clauses = append(clauses, c)
			}
		}
	}
	return strings.Join(clauses, " && "), nil
}

// rangeClause is Min <= field <= Max; an infinite bound is left open, and
// two infinite bounds filter nothing ("").
func rangeClause(f engines.Filter) (string, error) {
	lo, hi := math.IsInf(f.Min, -1), math.IsInf(f.Max, 1)
	switch {
	case math.IsNaN(f.Min) || math.IsNaN(f.Max) || math.IsInf(f.Min, 1) || math.IsInf(f.Max, -1):
		return "", fmt.Errorf("typesense: filter on %s: range [%v, %v] is not a range", f.Field, f.Min, f.Max)
	case lo && hi:
		return "", nil
	case lo:
		return f.Field + ":<=" + num(f.Max), nil
	case hi:
		return f.Field + ":>=" + num(f.Min), nil
	}
	return fmt.Sprintf("%s:[%s..%s]", f.Field, num(f.Min), num(f.Max)), nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// validJSON is what the generated API's …WithResponse methods check of a
// success they decode: that it is JSON.
func validJSON(body []byte) error {
	if !json.Valid(body) {
		return quote.Unreadable(body, errors.New("invalid JSON"))
	}
	return nil
}

// ParseImport checks an import answer: one JSON result a line, in the order
// of ids, each {"success": true} or {"success": false, "error": …,
// "code": …}. A failed line is an error naming its document's ID.
func ParseImport(body []byte, ids []string) error {
	var lines [][]byte
	for _, l := range bytes.Split(body, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			lines = append(lines, l)
		}
	}
	if len(lines) != len(ids) {
		return fmt.Errorf("import answered %d result lines for %d documents", len(lines), len(ids))
	}
	failed := 0
	var first error
	for i, l := range lines {
		var r struct {
			Success *bool  `json:"success"`
			Error   string `json:"error"`
			Code    int    `json:"code"`
		}
		if err := json.Unmarshal(l, &r); err != nil || r.Success == nil {
			return fmt.Errorf("import result for document %s is not {\"success\": …}: %q", ids[i], quote.Clip(string(l)))
		}
		if *r.Success {
			continue
		}
		if failed++; first == nil {
			first = fmt.Errorf("document %s: %w", ids[i], &StatusError{Status: r.Code, Message: quote.Clip(r.Error)})
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d documents failed, the first: %w", failed, len(ids), first)
	}
	return nil
}

// ParseSearch reads a search answer: the "id" of every hit's document, best
// first, and "found" as the total. Typesense IDs are strings; anything else,
// a missing member or more than k hits is an error.
func ParseSearch(body []byte, k int) (engines.Hits, error) {
	var r struct {
		Found *int64 `json:"found"`
		Hits  *[]struct {
			Document map[string]json.RawMessage `json:"document"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return engines.Hits{}, fmt.Errorf("search answer is not JSON: %v", err)
	}
	switch {
	case r.Found == nil || r.Hits == nil:
		return engines.Hits{}, errors.New(`search answer lacks "found" or "hits"`)
	case *r.Found < 0:
		return engines.Hits{}, fmt.Errorf("search answer has found=%d", *r.Found)
	case len(*r.Hits) > k:
		return engines.Hits{}, fmt.Errorf("search answer has %d hits for per_page=%d", len(*r.Hits), k)
	case int64(len(*r.Hits)) > *r.Found:
		return engines.Hits{}, fmt.Errorf("search answer has %d hits but found=%d", len(*r.Hits), *r.Found)
	}
	ids := make([]string, 0, len(*r.Hits))
	for i, h := range *r.Hits {
		var id string
		raw, ok := h.Document["id"]
		if !ok || json.Unmarshal(raw, &id) != nil {
			return engines.Hits{}, fmt.Errorf("search hit %d has no string document id", i)
		}
		ids = append(ids, id)
	}
	return engines.Hits{IDs: ids, Total: *r.Found}, nil
}

// ParseMultiSearch reads the answer to a POST /multi_search of one search:
// {"results": [r]}, where r is a search answer (ParseSearch) or, for a
// search Typesense refused, {"code": status, "error": message} — the
// answer's own status is 200 either way (core_api.cpp post_multi_search
// puts each search's error in its result).
func ParseMultiSearch(body []byte, k int) (engines.Hits, error) {
	var r struct {
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return engines.Hits{}, fmt.Errorf("multi_search answer is not JSON: %v", err)
	}
	if len(r.Results) != 1 {
		return engines.Hits{}, fmt.Errorf("multi_search answer has %d results for one search", len(r.Results))
	}
	var failed struct {
		Code  *int    `json:"code"`
		Error *string `json:"error"`
	}
	if err := json.Unmarshal(r.Results[0], &failed); err != nil {
		return engines.Hits{}, fmt.Errorf("multi_search result is not an object: %v", err)
	}
	if failed.Error != nil {
		status := 0
		if failed.Code != nil {
			status = *failed.Code
		}
		return engines.Hits{}, &StatusError{Status: status, Message: quote.Clip(*failed.Error)}
	}
	return ParseSearch(r.Results[0], k)
}

// documentJSON is the body of a single upsert: the document as the
// generated API's NewIndexDocumentRequest encodes it (json.Marshal).
func (st state) documentJSON(doc engines.Document) ([]byte, error) {
	m, err := st.document(doc)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("typesense: encode document %s: %w", doc.ID, err)
	}
	return b, nil
}

// importBody is an import's body, one JSON document a line (JSONL), and
// the documents' IDs in order, for ParseImport.
func (st state) importBody(docs []engines.Document) (*bytes.Buffer, []string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	ids := make([]string, len(docs))
	for i, d := range docs {
		m, err := st.document(d)
		if err != nil {
			return nil, nil, err
		}
		if err := enc.Encode(m); err != nil {
			return nil, nil, fmt.Errorf("typesense: encode document %s: %w", d.ID, err)
		}
		ids[i] = d.ID
	}
	return &buf, ids, nil
}

// upsertURI is the path and query of a single upsert (action=upsert), as
// the generated API's NewIndexDocumentRequest builds them.
func upsertURI(server, coll string) (string, error) {
	return requestURI(api.NewIndexDocumentRequestWithBody(server, coll, &api.IndexDocumentParams{Action: pointer.Any(api.Upsert)}, "application/json", nil))
}

// requestURI is the path and query of a request one of the generated
// API's New…Request constructors built (it is not sent).
func requestURI(r *http.Request, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return r.URL.RequestURI(), nil
}
