package amgixfake_test

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/searchbench/searchbench/engines/amgixnow/amgixfake"
)

// productSetup starts a synchronous fake with collection "p": full_text
// over name, whitespace over name, a 2-dimensional dense_custom vector and
// metadata indexes on category and price, holding three products.
func productSetup(t *testing.T) *amgixfake.Server {
	t.Helper()
	f := amgixfake.New(amgixfake.Sync())
	t.Cleanup(f.Close)
	code, body := do(t, "POST", f.URL+"/v1/collections/p", jsonCT, `{"vectors":[
		{"name":"ft","type":"full_text","index_fields":["name"]},
		{"name":"kw","type":"whitespace","index_fields":["name"]},
		{"name":"dense","type":"dense_custom","index_fields":["content"],"dimensions":2,"dense_distance":"cosine"}],
		"store_content":true,
		"metadata_indexes":[{"key":"category","type":"string"},{"key":"price","type":"float"}]}`)
	if code != 200 {
		t.Fatalf("create: %d %s", code, body)
	}
	at := time.Now()
	for i, p := range []struct {
		id, name, cat string
		price         float64
		vec           string
	}{
		{"1", "IT-1 red lamp", "electronics", 10, "[1,0]"},
		{"2", "IT-2 blue lamp", "electronics", 30, "[0.9,0.1]"},
		{"3", "TO-3 red ball", "toys", 20, "[0,1]"},
	} {
		code, body := do(t, "POST", f.URL+"/v1/collections/p/documents/sync", jsonCT, fmt.Sprintf(
			`{"id":%q,"timestamp":%q,"name":%q,"metadata":{"category":%q,"price":%v},
			"custom_vectors":[{"vector_name":"dense","field":"content","vector":%s}]}`,
			p.id, ts(at.Add(time.Duration(i)*time.Millisecond)), p.name, p.cat, p.price, p.vec))
		if code != 200 {
			t.Fatalf("upsert %s: %d %s", p.id, code, body)
		}
	}
	return f
}

func productSearch(t *testing.T, f *amgixfake.Server, body string) []string {
	t.Helper()
	code, answer := do(t, "POST", f.URL+"/v1/collections/p/search", jsonCT, body)
	if code != 200 {
		t.Fatalf("search %s: %d %s", body, code, answer)
	}
	var r struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(answer), &r); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range r.Results {
		ids = append(ids, h.ID)
	}
	return ids
}

// weights lists every arm of "p", those named weight 1, the others 0.
func weights(on ...string) string {
	var w []string
	for _, a := range []string{"ft/name", "kw/name", "dense/content"} {
		v, f, _ := strings.Cut(a, "/")
		weight := 0
		if slices.Contains(on, a) {
			weight = 1
		}
		w = append(w, fmt.Sprintf(`{"vector_name":%q,"field":%q,"weight":%d}`, v, f, weight))
	}
	return "[" + strings.Join(w, ",") + "]"
}

func TestProductSearches(t *testing.T) {
	f := productSetup(t)
	knn := `"custom_vectors":[{"vector_name":"dense","vector":[1,0]}]`
	for _, tc := range []struct {
		what, body string
		want       []string
	}{
		{"kNN by cosine", `{"query":"knn","limit":3,"vector_weights":` + weights("dense/content") + `,` + knn + `}`, []string{"1", "2", "3"}},
		{"kNN filtered on a tag", `{"query":"knn","limit":3,"vector_weights":` + weights("dense/content") + `,` + knn +
			`,"metadata_filter":{"and":[{"key":"category","op":"eq","value":"toys"}]}}`, []string{"3"}},
		{"kNN filtered on a price range", `{"query":"knn","limit":3,"vector_weights":` + weights("dense/content") + `,` + knn +
			`,"metadata_filter":{"and":[{"key":"price","op":"gte","value":10},{"key":"price","op":"lte","value":20}]}}`, []string{"1", "3"}},
		{"a whitespace lookup keeps the SKU whole", `{"query":"IT-1","limit":3,"vector_weights":` + weights("kw/name") + `}`, []string{"1"}},
		{"a full_text lookup splits it", `{"query":"IT-1","limit":3,"vector_weights":` + weights("ft/name") + `}`, []string{"1", "2"}},
		{"vector_options searches only the arms it lists", `{"query":"IT-1","limit":3,"vector_options":[{"vector_name":"kw","field":"name","weight":1}]}`, []string{"1"}},
		{"hybrid fuses both", `{"query":"ball","limit":3,"vector_weights":` + weights("ft/name", "dense/content") + `,` + knn + `}`, []string{"3", "1", "2"}},
	} {
		if got := productSearch(t, f, tc.body); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v; want %v", tc.what, got, tc.want)
		}
	}
}

// What Amgix refuses on the product surface, with its messages.
func TestProductRejections(t *testing.T) {
	f := productSetup(t)
	now := ts(time.Now().Add(time.Hour))
	for _, tc := range []struct {
		what, method, path, body string
		code                     int
		want                     string
	}{
		{"a dense_custom vector without dimensions", "POST", "/v1/collections/q",
			`{"vectors":[{"name":"d","type":"dense_custom","index_fields":["content"]}]}`, 422, "Dimensions are required"},
		{"a metadata index of an unknown type", "POST", "/v1/collections/q",
			`{"vectors":[{"name":"ft","type":"full_text"}],"metadata_indexes":[{"key":"k","type":"decimal"}]}`, 422, "invalid type 'decimal'"},
		{"a document without its custom vector", "POST", "/v1/collections/p/documents/sync",
			`{"id":"9","timestamp":"` + now + `","name":"x"}`, 400, "requires custom vectors but document has none"},
		{"a document vector of the wrong dimension", "POST", "/v1/collections/p/documents/sync",
			`{"id":"9","timestamp":"` + now + `","name":"x","custom_vectors":[{"vector_name":"dense","field":"content","vector":[1,2,3]}]}`, 400, "has 3 dimensions, expected 2"},
		{"a list as a metadata value", "POST", "/v1/collections/p/documents/sync",
			`{"id":"9","timestamp":"` + now + `","metadata":{"category":["a"]}}`, 422, "got list"},
		{"a search without the query vector", "POST", "/v1/collections/p/search",
			`{"query":"x","vector_weights":` + weights("dense/content") + `}`, 400, "not provided in query"},
		{"a query vector of the wrong dimension", "POST", "/v1/collections/p/search",
			`{"query":"x","vector_weights":` + weights("dense/content") + `,"custom_vectors":[{"vector_name":"dense","vector":[1]}]}`, 400, "has 1 dimensions, expected 2"},
		{"an arm the collection lacks", "POST", "/v1/collections/p/search",
			`{"query":"x","vector_weights":[{"vector_name":"emb","field":"name","weight":1}]}`, 400, "Vector configuration 'emb' not found"},
		{"an arm's field the vector lacks", "POST", "/v1/collections/p/search",
			`{"query":"x","vector_weights":[{"vector_name":"kw","field":"content","weight":1}]}`, 400, "Field 'content' is not configured for vector 'kw'"},
		{"vector_options names an arm the collection lacks", "POST", "/v1/collections/p/search",
			`{"query":"x","vector_options":[{"vector_name":"emb","field":"name","weight":1}]}`, 400, "Vector configuration 'emb' not found"},
		{"every arm by default, the dense one without a vector", "POST", "/v1/collections/p/search",
			`{"query":"x"}`, 400, "not provided in query"},
		{"a price that is not a number", "POST", "/v1/collections/p/documents/sync",
			`{"id":"9","timestamp":"` + now + `","metadata":{"price":"cheap"},"custom_vectors":[{"vector_name":"dense","field":"content","vector":[1,2]}]}`, 400, "does not match collection config expected type 'float'"},
		{"a filter on a key without an index", "POST", "/v1/collections/p/search",
			`{"query":"x","vector_weights":` + weights("ft/name") + `,"metadata_filter":{"key":"colour","op":"eq","value":"red"}}`, 400, "is not indexed in collection metadata_indexes"},
		{"a range on a string key", "POST", "/v1/collections/p/search",
			`{"query":"x","vector_weights":` + weights("ft/name") + `,"metadata_filter":{"key":"category","op":"gte","value":"a"}}`, 400, "is not supported for string key"},
	} {
		code, body := do(t, tc.method, f.URL+tc.path, jsonCT, tc.body)
		if code != tc.code || !strings.Contains(body, tc.want) || !strings.Contains(body, `"detail"`) {
			t.Errorf("%s: %d %s; want %d with %q", tc.what, code, body, tc.code, tc.want)
		}
	}
}

// The configuration reads back with its dense vector and metadata indexes.
func TestProductConfig(t *testing.T) {
	f := productSetup(t)
	code, body := do(t, "GET", f.URL+"/v1/collections/p", "", "")
	if code != 200 || !strings.Contains(body, `"dimensions":2`) || !strings.Contains(body, `"type":"dense_custom"`) ||
		!strings.Contains(body, `{"key":"category","type":"string"},{"key":"price","type":"float"}`) {
		t.Fatalf("config: %d %s", code, body)
	}
	code, body = do(t, "GET", f.URL+"/v1/collections/p/documents/3", "", "")
	if code != 200 || !strings.Contains(body, `"category":"toys"`) || !strings.Contains(body, `"price":20`) {
		t.Fatalf("get: %d %s", code, body)
	}
}

// Each dense_distance ranks the client's raw vectors as Qdrant does
// (lib/segment/src/spaces/simple.rs) and vector_scores carries Qdrant's
// score: dot the inner product, largest first; euclid the Euclidean
// distance, smallest first; cosine the cosine similarity. normalization
// true (the default of a dense type) leaves a dense_custom vector as
// sent: Amgix normalises only what it embeds itself.
func TestDenseDistances(t *testing.T) {
	for _, tc := range []struct {
		distance, normalization string
		want                    []string
		scores                  []float64
	}{
		{"cosine", "", []string{"2", "1", "3"}, []float64{1, 0.6, 0}},
		{"dot", "", []string{"1", "2", "3"}, []float64{6, 2, 0}},
		{"dot", `,"normalization":true`, []string{"1", "2", "3"}, []float64{6, 2, 0}},
		{"euclid", "", []string{"2", "3", "1"}, []float64{1, math.Sqrt(8), math.Sqrt(17)}},
	} {
		t.Run(tc.distance+tc.normalization, func(t *testing.T) {
			f := amgixfake.New(amgixfake.Sync())
			defer f.Close()
			code, body := do(t, "POST", f.URL+"/v1/collections/d", jsonCT, `{"vectors":[
				{"name":"dense","type":"dense_custom","index_fields":["content"],"dimensions":2,"dense_distance":"`+tc.distance+`"`+tc.normalization+`}]}`)
			if code != 200 {
				t.Fatalf("create: %d %s", code, body)
			}
			at := time.Now()
			for i, vec := range []string{"[3,4]", "[1,0]", "[0,2]"} {
				code, body := do(t, "POST", f.URL+"/v1/collections/d/documents/sync", jsonCT, fmt.Sprintf(
					`{"id":"%d","timestamp":%q,"custom_vectors":[{"vector_name":"dense","field":"content","vector":%s}]}`,
					i+1, ts(at.Add(time.Duration(i)*time.Millisecond)), vec))
				if code != 200 {
					t.Fatalf("upsert: %d %s", code, body)
				}
			}
			code, answer := do(t, "POST", f.URL+"/v1/collections/d/search", jsonCT,
				`{"query":"knn","limit":3,"raw_scores":true,"custom_vectors":[{"vector_name":"dense","vector":[2,0]}]}`)
			if code != 200 {
				t.Fatalf("search: %d %s", code, answer)
			}
			var r struct {
				Results []struct {
					ID           string `json:"id"`
					VectorScores []struct {
						Score float64 `json:"score"`
						Rank  int     `json:"rank"`
					} `json:"vector_scores"`
				} `json:"results"`
			}
			if err := json.Unmarshal([]byte(answer), &r); err != nil {
				t.Fatal(err)
			}
			var ids []string
			var scores []float64
			for i, h := range r.Results {
				ids = append(ids, h.ID)
				if len(h.VectorScores) != 1 || h.VectorScores[0].Rank != i+1 {
					t.Fatalf("hit %s: vector_scores %+v; want the dense arm's, rank %d", h.ID, h.VectorScores, i+1)
				}
				scores = append(scores, h.VectorScores[0].Score)
			}
			if !slices.Equal(ids, tc.want) || !slices.EqualFunc(scores, tc.scores, func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }) {
				t.Errorf("ranked %v scored %v; want %v scored %v", ids, scores, tc.want, tc.scores)
			}
			code, body = do(t, "GET", f.URL+"/v1/collections/d", "", "")
			if code != 200 || !strings.Contains(body, `"dense_distance":"`+tc.distance+`"`) || !strings.Contains(body, `"normalization":true`) {
				t.Errorf("config: %d %s; want dense_distance %s and normalization true (a dense type's default)", code, body, tc.distance)
			}
		})
	}
}

// What Amgix refuses of a vector's distance and normalization
// (validate_dense_distance, validate_normalization in src/validation.rs).
func TestDistanceRejections(t *testing.T) {
	f := amgixfake.New(amgixfake.Sync())
	defer f.Close()
	for _, tc := range []struct{ what, vector, want string }{
		{"an unknown distance", `{"name":"d","type":"dense_custom","dimensions":2,"dense_distance":"manhattan"}`, "unknown variant `manhattan`"},
		{"a distance on a sparse vector", `{"name":"ft","type":"full_text","dense_distance":"dot"}`, "dense_distance can only be specified for dense vectors"},
		{"normalization on a sparse vector", `{"name":"ft","type":"full_text","normalization":true}`, "Normalization is not supported for sparse vector type 'full_text'"},
	} {
		code, body := do(t, "POST", f.URL+"/v1/collections/q", jsonCT, `{"vectors":[`+tc.vector+`]}`)
		if code != 422 || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s; want 422 with %q", tc.what, code, body, tc.want)
		}
	}
}
