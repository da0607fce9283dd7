package amgixnow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
	"github.com/valyala/fasthttp"
)

// maxBody bounds a response read: a search answer carries every hit's stored
// fields (up to 100 hits of up to 1,000,000 characters of content each in
// the worst case; the corpus's documents are a few kilobytes).
const maxBody = 128 << 20

// call sends one request and returns a 2xx answer's body. It never retries:
// a retry would hide overload and add to the measured time.
func (e *Engine) call(ctx context.Context, method, path string, body any) ([]byte, error) {
	return e.send(ctx, false, method, path, body)
}

// hotCall is call for the calls a run repeats (search, upsert, delete,
// get): the same request, sent through httpwire.FastClient instead of
// net/http (TestHotCallsWire compares the bytes), which costs the load
// generator about 40% less CPU a call (BenchmarkTransports in
// bench/README.md).
func (e *Engine) hotCall(ctx context.Context, method, path string, body any) ([]byte, error) {
	return e.send(ctx, true, method, path, body)
}

func (e *Engine) send(ctx context.Context, hot bool, method, path string, body any) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, e.base+path, rd)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if e.key != "" {
		// src/auth.rs accepts the key as "api-key" or "Authorization: Bearer".
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	var status int
	var data []byte
	if hot {
		resp := fasthttp.AcquireResponse()
		defer fasthttp.ReleaseResponse(resp)
		if err := e.fast.Send(ctx, req, resp); err != nil {
			return nil, e.transportError(err)
		}
		// The answer outlives the pooled response.
		status, data = resp.StatusCode(), bytes.Clone(resp.Body())
	} else {
		resp, err := e.http.Do(req)
		if err != nil {
			return nil, e.transportError(err)
		}
		defer resp.Body.Close()
		data, err = io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
		if err != nil {
			return nil, e.transportError(err)
		}
		status = resp.StatusCode
	}
	if len(data) > maxBody {
		return nil, fmt.Errorf("response larger than %d bytes", maxBody)
	}
	if status < 200 || status > 299 {
		return nil, statusError(status, documentMissing(data), e.scrub(errorDetail(data)))
	}
	return data, nil
}

// transportError classifies a failed round trip (httpwire.TransportError).
// url.Error quotes the request URL; the message names the redacted endpoint
// instead, and never shows the key.
func (e *Engine) transportError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%s: %w", e.endpoint, quote.Redact(httpwire.TransportError(err), e.key))
}

// statusError maps an HTTP failure to the runner's error classes
// (httpwire.StatusError). A 404 is engines.ErrNotFound only when missing, the
// body being Amgix's word that a document is missing (documentMissing: a
// get's answer); otherwise it is a missing collection or route, which the
// runner must not count as a harmless missing ID.
func statusError(code int, missing bool, detail string) error {
	if code == http.StatusUnauthorized || code == http.StatusForbidden {
		return fmt.Errorf("HTTP %d: %s (the server wants an API key, Config.APIKey, or refused the one given)", code, detail)
	}
	return httpwire.StatusError(code, missing, fmt.Errorf("HTTP %d: %s", code, detail))
}

// errorDetail extracts Amgix's FastAPI-style error: {"detail": "text"} or
// {"detail": [{"loc": [...], "msg": "..."}]}; a plain-text body (axum's
// query-string rejection) is quoted as it is. Whichever it is, it is
// clipped (quote.Clip).
func errorDetail(body []byte) string {
	var v struct {
		Detail json.RawMessage `json:"detail"`
	}
	if err := json.Unmarshal(body, &v); err != nil || len(v.Detail) == 0 {
		return clip(string(body))
	}
	var s string
	if json.Unmarshal(v.Detail, &s) == nil {
		return clip(s)
	}
	var items []struct {
		Loc []any  `json:"loc"`
		Msg string `json:"msg"`
	}
	if json.Unmarshal(v.Detail, &items) == nil && len(items) > 0 {
		parts := make([]string, len(items))
		for i, it := range items {
			loc := make([]string, len(it.Loc))
			for j, l := range it.Loc {
				loc[j] = fmt.Sprint(l)
			}
			parts[i] = strings.Join(loc, ".") + ": " + it.Msg
		}
		return clip(strings.Join(parts, "; "))
	}
	return clip(string(v.Detail))
}

// clip is quote.Clip, saying so when the server gave no message at all.
func clip(s string) string {
	if s = quote.Clip(s); s == "" {
		return "(no message)"
	}
	return s
}

// scrub removes the API key from a message, should a server or a proxy echo
// it back.
func (e *Engine) scrub(s string) string { return quote.RedactString(s, e.key) }

// okResponse is Amgix's OkResponse: {"ok": true, "skipped": [ids]}, skipped
// present only when a write was not applied because its timestamp was not
// newer than the stored document's.
type okResponse struct {
	OK      *bool    `json:"ok"`
	Skipped []string `json:"skipped"`
}

// ParseWrite decodes a write's answer into the IDs Amgix skipped.
func ParseWrite(body []byte) ([]string, error) {
	var r okResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("malformed write response: %w", err)
	}
	if r.OK == nil || !*r.OK {
		return nil, errors.New(`write response without "ok": true`)
	}
	return r.Skipped, nil
}

// searchHit is the one field the driver reads of a SearchResult (a document's
// stored fields flattened, plus score and vector_scores).
type searchHit struct {
	ID *string `json:"id"`
}

// ParseSearch decodes a search answer into IDs, best first, and checks that
// it holds at most k hits. Two shapes are accepted: a bare JSON array of
// results (Amgix Now's src/main.rs at 04b08ea) and {"results": [...],
// "query_time_ms": ...} (later versions, and the reference's reading); which
// one the 0.1.2 image sends is not known here.
func ParseSearch(body []byte, k int) ([]string, error) {
	var hits []searchHit
	switch trimmed := bytes.TrimLeft(body, " \t\r\n"); {
	case len(trimmed) > 0 && trimmed[0] == '[':
		if err := json.Unmarshal(body, &hits); err != nil {
			return nil, fmt.Errorf("malformed search response: %w", err)
		}
	default:
		var r struct {
			Results *[]searchHit `json:"results"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, fmt.Errorf("malformed search response: %w", err)
		}
		if r.Results == nil {
			return nil, errors.New(`search response has no "results"`)
		}
		hits = *r.Results
	}
	if len(hits) > k {
		return nil, fmt.Errorf("search returned %d hits for limit %d", len(hits), k)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		if h.ID == nil || *h.ID == "" {
			return nil, fmt.Errorf("search hit %d has no id", i)
		}
		ids[i] = *h.ID
	}
	return ids, nil
}

// collectionStats is GET /v1/collections/{name}/stats.
type collectionStats struct {
	DocCount *int64 `json:"doc_count"`
	Queue    struct {
		Total int64 `json:"total"`
	} `json:"queue"`
}

// ParseStats decodes the collection's document count and queue depth.
func ParseStats(body []byte) (docs, queued int64, err error) {
	var s collectionStats
	if err := json.Unmarshal(body, &s); err != nil {
		return 0, 0, fmt.Errorf("malformed stats response: %w", err)
	}
	if s.DocCount == nil || *s.DocCount < 0 {
		return 0, 0, errors.New(`stats response without a "doc_count"`)
	}
	return *s.DocCount, s.Queue.Total, nil
}

// documentMissing says whether a 404's body is Amgix's word that a document
// is missing — {"detail": "Documents not found for document_ids: …"} from
// get_documents (src/qdrant.rs), or "Document '…' not found", the handler's
// own wording (src/main.rs get_document) — as opposed to a missing
// collection or a route the server lacks (axum's bare 404). Only a document
// read answers it: Amgix deletes a missing document with 200.
func documentMissing(body []byte) bool {
	var v struct {
		Detail string `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	return strings.HasPrefix(v.Detail, "Documents not found for document_ids: ") ||
		strings.HasPrefix(v.Detail, "Document '") && strings.HasSuffix(v.Detail, "' not found")
}
