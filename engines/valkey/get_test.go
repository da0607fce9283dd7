package valkey_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/searchbench/searchbench/engines"
)

// Get returns a product hash whole — tag, number, texts and the decoded
// vector: HGETALL is the server's own. A missing key is NotFound; a hash
// the driver did not write that way is an error of class Other, and so is
// a key of another type (a real server only: the fake keeps hashes alone).
// It runs as a contract (the fake, the module) and here against Debian's
// valkey-server, without the module (matching_indexes=0).
func TestGetProducts(t *testing.T) {
	addr := realServer(t)
	getProducts(t, target{url: "redis://" + addr, addr: addr}, map[string]string{"matching_indexes": "0"})
}

func getProductsContract(t *testing.T, tg target) { getProducts(t, tg, nil) }

func getProducts(t *testing.T, tg target, opts map[string]string) {
	e := tg.open(t, opts)
	loadProducts(t, e)
	ctx := context.Background()
	g := e.(engines.Getter)
	for _, p := range products {
		got, err := g.Get(ctx, p.id)
		if want := p.doc(); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("Get(%s) = %+v, %v\nwant %+v", p.id, got, err, want)
		}
	}
	if _, err := g.Get(ctx, "999"); engines.Classify(err) != engines.NotFound {
		t.Fatalf("Get(missing): %v; want not_found", err)
	}
	if _, err := g.Get(ctx, ""); err == nil || engines.Classify(err) == engines.NotFound {
		t.Fatalf("Get(\"\"): %v; want an error that is not not_found", err)
	}
	raw := tg.raw(t)
	for key, fields := range map[string][]string{
		"products:bad-price":  {"price", "cheap"},
		"products:bad-vector": {"embedding", "abc"},
	} {
		if err := do(t, raw, append([]string{"HSET", key}, fields...)...).Error(); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Get(ctx, key[len("products:"):]); err == nil || engines.Classify(err) != engines.Other {
			t.Errorf("Get of %s: %v; want an error of class other", key, err)
		}
	}
	if tg.fake == nil {
		if err := do(t, raw, "SET", "products:string", "x").Error(); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Get(ctx, "string"); err == nil || engines.Classify(err) != engines.Other {
			t.Errorf("Get of a string key: %v; want WRONGTYPE, class other", err)
		}
	}
}
