package typesensefake_test

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

const vecSchema = `{"name":"p","fields":[{"name":"title","type":"string"},{"name":"cat","type":"string","facet":true},` +
	`{"name":"emb","type":"float[]","num_dim":2}]}`

// withVectors is a collection of four documents whose vectors are, by
// cosine to (1, 0), ranked 1, 2, 3, 4 (4 is the farthest).
func withVectors(t *testing.T) client {
	c := start(t)
	c.mustDo("POST", "/collections", vecSchema, 201)
	for _, d := range []string{
		`{"id":"1","title":"red lamp","cat":"home","emb":[1,0.1]}`,
		`{"id":"2","title":"blue lamp","cat":"office","emb":[1,0.5]}`,
		`{"id":"3","title":"red chair","cat":"home","emb":[1,2]}`,
		`{"id":"4","title":"green desk","cat":"office","emb":[0,1]}`,
	} {
		c.mustDo("POST", "/collections/p/documents", d, 201)
	}
	return c
}

// multi sends one search through /multi_search and returns its result.
func (c client) multi(search string) (ids []string, found int, code int, msg string) {
	c.t.Helper()
	b := c.mustDo("POST", "/multi_search", `{"searches":[`+search+`]}`, 200)
	var r struct {
		Results []struct {
			Found int
			Code  int
			Error string
			Hits  []struct {
				Document       map[string]any
				VectorDistance *float64 `json:"vector_distance"`
			}
		}
	}
	if err := json.Unmarshal([]byte(b), &r); err != nil || len(r.Results) != 1 {
		c.t.Fatalf("multi_search answer %s: %v", b, err)
	}
	res := r.Results[0]
	for _, h := range res.Hits {
		ids = append(ids, h.Document["id"].(string))
	}
	return ids, res.Found, res.Code, res.Error
}

func TestVectorSearch(t *testing.T) {
	c := withVectors(t)
	for _, tc := range []struct {
		search string
		want   []string
	}{
		{`{"collection":"p","q":"*","vector_query":"emb:([1,0], k:3)"}`, []string{"1", "2", "3"}},
		// Pre-filter: the k nearest office documents, not the 3 nearest
		// filtered afterwards (which leaves 2 alone).
		{`{"collection":"p","q":"*","vector_query":"emb:([1,0], k:3)","filter_by":"cat:=office"}`, []string{"2", "4"}},
		// per_page above k: k neighbours (Index::search at v29.0).
		{`{"collection":"p","q":"*","vector_query":"emb:([1,0], k:1)","per_page":2}`, []string{"1"}},
		// Without k: a page's worth.
		{`{"collection":"p","q":"*","vector_query":"emb:([1,0])","per_page":2}`, []string{"1", "2"}},
		// Hybrid where no document holds both words: the vector hits alone.
		{`{"collection":"p","q":"desk red","query_by":"title","drop_tokens_threshold":0,"vector_query":"emb:([1,0], k:2)"}`, []string{"1", "2"}},
	} {
		got, found, code, msg := c.multi(tc.search)
		if code != 0 {
			t.Fatalf("%s: %d %s", tc.search, code, msg)
		}
		if !slices.Equal(got, tc.want) || found != len(tc.want) {
			t.Errorf("%s: %v (found %d); want %v", tc.search, got, found, tc.want)
		}
	}
	// "red" matches 3 and 1 (the newer first); (0, 1) is nearest to 4.
	got, _, _, _ := c.multi(`{"collection":"p","q":"red","query_by":"title","drop_tokens_threshold":0,"vector_query":"emb:([0,1], k:1)"}`)
	// Scores: 3 first by text, 0.7/1; 1 second by text, 0.7/2; 4 first
	// by vector, 0.3/1 (an equal weight would put 4 beside 3).
	if !slices.Equal(got, []string{"3", "1", "4"}) {
		t.Errorf("hybrid red near (0,1): %v; want [3 1 4]", got)
	}
	// The same through GET.
	ids, _ := c.searchIn("p", "q=*&vector_query="+strings.ReplaceAll("emb:([1,0],k:2)", "[", "%5B"))
	if !slices.Equal(ids, []string{"1", "2"}) {
		t.Errorf("GET kNN: %v", ids)
	}
}

func TestVectorRejections(t *testing.T) {
	c := withVectors(t)
	for _, tc := range []struct {
		search string
		code   int
		msg    string
	}{
		{`{"collection":"p","q":"*","vector_query":"emb:([1,0,0], k:3)"}`, 400, "Query field `emb` must have 2 dimensions."},
		{`{"collection":"p","q":"*","vector_query":"title:([1,0], k:3)"}`, 400, "Field `title` does not have a vector query index."},
		{`{"collection":"p","q":"*","vector_query":"emb:([1,x], k:3)"}`, 400, "Malformed vector query string: one of the vector values is not a float."},
		{`{"collection":"p","q":"*","vector_query":"emb:[1,0]"}`, 400, "Malformed vector query string."},
		{`{"collection":"p","q":"*","vector_query":"emb:([1,0], ef:0)"}`, 400, "Malformed vector query string: `ef` parameter must be a positive integer."},
		{`{"collection":"p","q":"*","vector_query":"emb:([1,0], ef:-5)"}`, 400, "Malformed vector query string: `ef` parameter must be a positive integer."},
		{`{"collection":"p","q":"*","vector_query":"emb:([1,0], ef:4294967296)"}`, 400, "Malformed vector query string: `ef` parameter must be a positive integer."},
		{`{"collection":"p","q":"*","vector_query":"emb:([1,0], flat_search_cutoff:5)"}`, 501, "typesensefake: vector_query parameter flat_search_cutoff is not modelled"},
		// An empty vector asks Typesense to embed q or use a document's.
		{`{"collection":"p","q":"*","vector_query":"emb:([], id:3)"}`, 501, "typesensefake: a vector query without a vector (the embedding of q or of a document) is not modelled"},
		{`{"collection":"nope","q":"*"}`, 404, "Not found."},
		{`{"collection":"p","q":"*","filter_by":"nope:=x"}`, 404, "Could not find a filter field named `nope` in the schema."},
	} {
		_, _, code, msg := c.multi(tc.search)
		if code != tc.code || msg != tc.msg {
			t.Errorf("%s: %d %q; want %d %q", tc.search, code, msg, tc.code, tc.msg)
		}
	}
	status, body := c.do("POST", "/collections/p/documents", `{"id":"9","title":"x","cat":"home","emb":[1]}`)
	c.want(status, body, 400, "Field `emb` must have 2 dimensions.")
	status, body = c.do("POST", "/collections/p/documents", `{"id":"9","title":"x","cat":"home","emb":"no"}`)
	c.want(status, body, 400, "Field `emb` must be an array of float.")
	status, body = c.do("POST", "/multi_search", `{"searches":1}`)
	c.want(status, body, 400, "Bad JSON.")
	status, body = c.do("POST", "/multi_search", `{}`)
	c.want(status, body, 400, "Missing `searches` array.")
}

// searchIn is a GET search in collection coll.
func (c client) searchIn(coll, rawQuery string) ([]string, int) {
	c.t.Helper()
	b := c.mustDo("GET", "/collections/"+coll+"/documents/search?"+rawQuery, "", 200)
	var r struct {
		Found int
		Hits  []struct{ Document map[string]any }
	}
	if err := json.Unmarshal([]byte(b), &r); err != nil {
		c.t.Fatal(err)
	}
	var ids []string
	for _, h := range r.Hits {
		ids = append(ids, h.Document["id"].(string))
	}
	return ids, r.Found
}

// vec_dist ip ranks by inner product, largest first, with Typesense's
// vector_distance 1 − dot (hnswlib's inner product space, vectors as
// given); cosine by |1 − cos|. The two orders differ on these vectors.
func TestVectorDistances(t *testing.T) {
	c := start(t)
	docs := map[string]string{"near": "[0.9,0.1]", "long": "[5,0]", "wide": "[8,6]", "back": "[-1,0]"}
	for _, tc := range []struct {
		dist, field string // vec_dist as sent ("" none), as echoed
		want        []string
		distances   []float64
	}{
		{`"ip"`, "ip", []string{"wide", "long", "near", "back"}, []float64{1 - 8, 1 - 5, 1 - 0.9, 1 + 1}},
		{`"cosine"`, "cosine", []string{"long", "near", "wide", "back"}, []float64{0, 1 - 0.9/math.Sqrt(0.82), 1 - 0.8, 2}},
		{"", "cosine", []string{"long", "near", "wide", "back"}, []float64{0, 1 - 0.9/math.Sqrt(0.82), 1 - 0.8, 2}},
	} {
		name := "c" + strings.Trim(tc.dist, `"`)
		vec := `{"name":"v","type":"float[]","num_dim":2}`
		if tc.dist != "" {
			vec = `{"name":"v","type":"float[]","num_dim":2,"vec_dist":` + tc.dist + `}`
		}
		b := c.mustDo("POST", "/collections", `{"name":"`+name+`","fields":[{"name":"t","type":"string"},`+vec+`]}`, 201)
		if !strings.Contains(b, `"num_dim":2,"vec_dist":"`+tc.field+`"`) {
			t.Fatalf("vec_dist %s: the collection echoes %s", tc.dist, b)
		}
		for id, v := range docs {
			c.mustDo("POST", "/collections/"+name+"/documents", `{"id":"`+id+`","t":"x","v":`+v+`}`, 201)
		}
		b = c.mustDo("POST", "/multi_search", `{"searches":[{"collection":"`+name+`","q":"*","vector_query":"v:([1,0], k:4)"}]}`, 200)
		var r struct {
			Results []struct {
				Hits []struct {
					Document       map[string]any
					VectorDistance float64 `json:"vector_distance"`
				}
			}
		}
		if err := json.Unmarshal([]byte(b), &r); err != nil || len(r.Results) != 1 || len(r.Results[0].Hits) != len(tc.want) {
			t.Fatalf("vec_dist %s: %s (%v)", tc.dist, b, err)
		}
		for i, h := range r.Results[0].Hits {
			if h.Document["id"] != tc.want[i] || math.Abs(h.VectorDistance-tc.distances[i]) > 1e-6 {
				t.Errorf("vec_dist %s: hit %d is %v at %v; want %s at %v", tc.dist, i, h.Document["id"], h.VectorDistance, tc.want[i], tc.distances[i])
			}
		}
	}
	// Typesense 29.0 has no other distance (vector_distance_type_t): a
	// name it lacks, of any case, is refused, as is a non-string.
	for _, tc := range []struct{ dist, msg string }{
		{`"l2"`, "Property `vec_dist` is invalid."},
		{`"IP"`, "Property `vec_dist` is invalid."},
		{`"euclidean"`, "Property `vec_dist` is invalid."},
		{`1`, "Property `vec_dist` must be a string."},
	} {
		status, body := c.do("POST", "/collections", `{"name":"bad","fields":[{"name":"v","type":"float[]","num_dim":2,"vec_dist":`+tc.dist+`}]}`)
		c.want(status, body, 400, tc.msg)
	}
	status, body := c.do("POST", "/collections", `{"name":"bad","fields":[{"name":"t","type":"string","vec_dist":"ip"}]}`)
	if status != 501 {
		t.Errorf("vec_dist on a string field: %d %s; want 501 (not modelled)", status, body)
	}
}
