package apispec_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/searchbench/searchbench/engines/enginetest/apispec"
)

// misnamed is a request a driver sends, and the same request with one name
// misspelt: the check must pass the first and refuse the second, naming
// the field.
type misnamed struct {
	name, method, url, body string
	// bad is the same request with old replaced by new (in the body, or in
	// the URL when inURL); want is what the error must say.
	old, new string
	inURL    bool
	want     string
}

func checkMisnamed(t *testing.T, spec *apispec.Spec, contentType string, cases []misnamed) {
	t.Helper()
	doc, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Content-Type": {contentType}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := doc.CheckRequest(c.method, c.url, h, []byte(c.body)); err != nil {
				t.Fatalf("the request as the driver sends it: %v", err)
			}
			url, body := c.url, c.body
			if c.inURL {
				url = strings.Replace(url, c.old, c.new, 1)
			} else {
				body = strings.Replace(body, c.old, c.new, 1)
			}
			if url == c.url && body == c.body {
				t.Fatalf("%q is not in the request", c.old)
			}
			_, err := doc.CheckRequest(c.method, url, h, []byte(body))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("with %s misnamed %s: %v; want an error saying %s", c.old, c.new, err, c.want)
			}
		})
	}
}

func TestMisnamedElasticsearch(t *testing.T) {
	checkMisnamed(t, apispec.Elasticsearch, "application/json", []misnamed{
		{name: "knn.num_candidates", method: "POST", url: "/product/_search",
			body: `{"_source":false,"knn":[{"field":"embedding","query_vector":[1,0,0,0],"k":3,"num_candidates":30,"filter":[{"term":{"category":{"value":"books"}}}]}],"size":3}`,
			old:  `"num_candidates"`, new: `"num_candidate"`, want: `at /knn/0/num_candidate: property "num_candidate" is not declared by _types.KnnSearch`},
		{name: "match_phrase.query", method: "POST", url: "/product/_search",
			body: `{"_source":false,"query":{"match_phrase":{"sku.exact":{"query":"TO-294"}}},"size":10,"track_total_hits":10000}`,
			old:  `"query":"TO`, new: `"qeury":"TO`, want: `property "qeury" is not declared by _types.query_dsl.MatchPhraseQuery`},
		{name: "refresh parameter", method: "PUT", url: "/product/_doc/1?refresh=wait_for", body: `{"sku":"TO-1"}`,
			old: "refresh=", new: "refrsh=", inURL: true, want: "query parameter refrsh: not declared"},
	})
}

func TestMisnamedTypesense(t *testing.T) {
	checkMisnamed(t, apispec.Typesense, "application/json", []misnamed{
		{name: "multi_search per_page", method: "POST", url: "/multi_search",
			body: `{"searches":[{"collection":"product","filter_by":"category:=` + "`books`" + `","include_fields":"id","per_page":3,"q":"*","vector_query":"embedding:([1,0], k:3)"}]}`,
			old:  `"per_page"`, new: `"per_pagee"`, want: `at /searches/0/per_pagee: property "per_pagee" is not declared by MultiSearchCollectionParameters`},
		{name: "multi_search vector_query", method: "POST", url: "/multi_search",
			body: `{"searches":[{"collection":"product","include_fields":"id","per_page":3,"q":"*","vector_query":"embedding:([1,0], k:3)"}]}`,
			old:  `"vector_query"`, new: `"vectorquery"`, want: `property "vectorquery" is not declared`},
		{name: "search query_by", method: "GET",
			url: "/collections/product/documents/search?include_fields=id&num_typos=0&per_page=10&prefix=false&q=thing&query_by=sku%2Ctitle%2Cdescription&typo_tokens_threshold=0",
			old: "query_by=", new: "queryby=", inURL: true, want: "query parameter queryby: not declared"},
	})
}

func TestMisnamedMeilisearch(t *testing.T) {
	checkMisnamed(t, apispec.Meilisearch, "application/json", []misnamed{
		{name: "hybrid.semanticRatio", method: "POST", url: "/indexes/product/search",
			body: `{"limit":3,"attributesToRetrieve":["id"],"q":"thing","vector":[1,0,0,0],"hybrid":{"embedder":"embedding","semanticRatio":0.5}}`,
			old:  `"semanticRatio"`, new: `"semanticRatioo"`, want: `at /hybrid/semanticRatioo: property "semanticRatioo" is not declared by HybridQuery`},
		{name: "attributesToSearchOn", method: "POST", url: "/indexes/product/search",
			body: `{"limit":10,"attributesToRetrieve":["id"],"attributesToSearchOn":["sku"],"q":"\"IT 200\"","hybrid":null}`,
			old:  `"attributesToSearchOn"`, new: `"attributesToSearchIn"`, want: `property "attributesToSearchIn" is not declared by SearchQuery`},
		{name: "tasks statuses", method: "GET", url: "/tasks?from=5&indexUids=product&limit=20&statuses=failed%2Ccanceled",
			old: "statuses=", new: "status=", inURL: true, want: "query parameter status: not declared"},
	})
}

// Amgix Now publishes no OpenAPI document (README.md): there is nothing to
// check its driver's traffic against.
func TestMisnamedAmgixNow(t *testing.T) {
	t.Skip("Amgix Now 0.1.2 publishes no OpenAPI document (apispec/README.md): its traffic is not checked")
}
