package amgixnow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/engines/quote"
)

func collectionPath(name string) string { return "/v1/collections/" + name }

type vectorConfig struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	IndexFields []string `json:"index_fields"`
	TopK        int      `json:"top_k,omitempty"`
}

type collectionConfig struct {
	Vectors      []vectorConfig `json:"vectors"`
	StoreContent bool           `json:"store_content"`
}

// wireDocument is the body of one document; text fields outside the schema
// are not sent.
func wireDocument(doc engines.Document, fields []string, ts int64) map[string]string {
	m := make(map[string]string, len(fields)+2)
	m["id"], m["timestamp"] = doc.ID, formatTimestamp(ts)
	for _, f := range fields {
		m[f] = doc.Text(f)
	}
	return m
}

type searchRequest struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

// checkConfig reads a collection's configuration and checks that it is
// what Create makes (topK 0: the server's default, not checked).
func checkConfig(body []byte, fields []string, topK int) error {
	var c struct {
		Vectors []struct {
			Name        string   `json:"name"`
			Type        string   `json:"type"`
			IndexFields []string `json:"index_fields"`
			TopK        int      `json:"top_k"`
		} `json:"vectors"`
		StoreContent bool `json:"store_content"`
	}
	if err := json.Unmarshal(body, &c); err != nil {
		return fmt.Errorf("malformed collection configuration: %q", quote.Clip(string(body)))
	}
	want := fmt.Sprintf("one vector, %s full_text over %v", VectorName, fields)
	if topK != 0 {
		want += fmt.Sprintf(" (top_k %d)", topK)
	}
	if len(c.Vectors) != 1 || !c.StoreContent {
		return fmt.Errorf("the collection has %d vectors (store_content %v); Create makes %s, storing content", len(c.Vectors), c.StoreContent, want)
	}
	v := c.Vectors[0]
	if v.Name != VectorName || v.Type != "full_text" || !slices.Equal(v.IndexFields, fields) || (topK != 0 && v.TopK != topK) {
		return fmt.Errorf("its vector is %s %s over %v (top_k %d); Create makes %s", v.Name, v.Type, v.IndexFields, v.TopK, want)
	}
	return nil
}

// ParseExists decodes {"exists": bool}.
func ParseExists(body []byte) (bool, error) {
	var v struct {
		Exists *bool `json:"exists"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Exists == nil {
		return false, fmt.Errorf("malformed exists response: %q", quote.Clip(string(body)))
	}
	return *v.Exists, nil
}

// ParseVersion decodes {"version": "..."}.
func ParseVersion(body []byte) (string, error) {
	var v struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(body, &v); err != nil || strings.TrimSpace(v.Version) == "" {
		return "", fmt.Errorf("malformed version response: %q", quote.Clip(string(body)))
	}
	return strings.TrimSpace(v.Version), nil
}

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

// bulkRequest is the body of POST …/documents/bulk.
type bulkRequest struct {
	Documents []map[string]string `json:"documents"`
}

// encode is a request's JSON body.
func encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return b, nil
}
