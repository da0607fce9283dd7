package amgixnow

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
)

// transportError classifies a failed round trip (httpwire.TransportError).
// url.Error quotes the request URL; the message names the redacted endpoint
// instead, and never shows the key.
func (e *Engine) transportError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%s: %w", e.endpoint, e.secrets.Error(httpwire.TransportError(err)))
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

// scrub removes the credentials (the API key, the URL's userinfo) from a
// message, should a server or a proxy echo one back.
func (e *Engine) scrub(s string) string { return e.secrets.String(s) }

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
