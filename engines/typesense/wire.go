package typesense

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/typesense/typesense-go/v3/typesense"
	"github.com/typesense/typesense-go/v3/typesense/api"
	"github.com/typesense/typesense-go/v3/typesense/api/pointer"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
)

// UpsertBatch writes docs through the import endpoint with action=upsert
// and checks the result line of every document.
func (e *Engine) UpsertBatch(ctx context.Context, docs []engines.Document) error {
	if len(docs) == 0 {
		return nil
	}
	st, err := e.state()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // one document a line: JSONL
	ids := make([]string, len(docs))
	for i, d := range docs {
		m, err := st.document(d)
		if err != nil {
			return err
		}
		if err := enc.Encode(m); err != nil {
			return fmt.Errorf("typesense: encode document %s: %w", d.ID, err)
		}
		ids[i] = d.ID
	}
	what := fmt.Sprintf("upsert batch of %d", len(docs))
	rc, err := e.importer.Collection(st.coll).Documents().ImportJsonl(ctx, &buf, &api.ImportDocumentsParams{Action: pointer.Any(api.Upsert)})
	if err != nil {
		return e.fail(what, err)
	}
	defer rc.Close()
	body, err := readBody(rc)
	if err != nil {
		return e.fail(what, err)
	}
	if err := ParseImport(body, ids); err != nil {
		return e.fail(what, err)
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

// maxBody bounds what the driver reads of one answer: a search with
// include_fields=id or an import result is far smaller.
const maxBody = 64 << 20

func readBody(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("answer larger than %d bytes", maxBody)
	}
	return body, nil
}

// call takes a raw client call's answer: the body of a 200, or a
// StatusError.
func (e *Engine) call(resp *http.Response, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := readBody(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, statusError(resp.StatusCode, body)
	}
	return body, nil
}

// StatusError is an answer that is not a success, with Typesense's message.
// It unwraps to the class of its status (httpwire.StatusClass): a 404 is
// engines.ErrNotFound only for a missing document (a missing collection's
// 404, "Not Found", is a setup mistake, not a result).
type StatusError struct {
	Status  int // 0 in an import line without a code
	Message string
}

func (e *StatusError) Error() string {
	if e.Status == 0 {
		return e.Message
	}
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
}

func (e *StatusError) Unwrap() error {
	return httpwire.StatusClass(e.Status, strings.HasPrefix(e.Message, missingDocument))
}

// missingDocument starts Typesense's message for a missing document: its
// src/collection.cpp answers 404 "Could not find a document with id: " + id
// (Collection::get, which a delete looks the document up with), while a
// missing collection's 404 says "Not Found".
const missingDocument = "Could not find a document with id"

// statusError reads Typesense's {"message": …} body, or keeps the start of
// a body that is not one.
func statusError(status int, body []byte) *StatusError {
	var m struct {
		Message string `json:"message"`
	}
	msg := string(body)
	if json.Unmarshal(body, &m) == nil && m.Message != "" {
		msg = m.Message
	}
	return &StatusError{Status: status, Message: quote.Clip(msg)}
}

// statusOf is the HTTP status an error carries, or 0.
func statusOf(err error) int {
	var he *typesense.HTTPError
	var se *StatusError
	switch {
	case errors.As(err, &he):
		return he.Status
	case errors.As(err, &se):
		return se.Status
	}
	return 0
}

// classify puts err in the runner's classes.
func classify(err error) error {
	var he *typesense.HTTPError
	if errors.As(err, &he) {
		return statusError(he.Status, he.Body)
	}
	return httpwire.TransportError(err)
}

// fail wraps err with what was done, classified, without the API key.
func (e *Engine) fail(what string, err error) error {
	return quote.Redact(fmt.Errorf("typesense: %s: %w", what, classify(err)), e.key)
}
