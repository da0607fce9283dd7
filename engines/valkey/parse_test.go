package valkey

import (
	"strings"
	"testing"
)

func s(t string) any     { return t }
func l(items ...any) any { return items }

func TestParseFTInfo(t *testing.T) {
	good := l(s("index_name"), s("x"), s("attributes"), l(l(s("identifier"), s("t"))),
		s("num_docs"), s("42"), s("mutation_queue_size"), s("3"), s("hash_indexing_failures"), s("1.000000"))
	info, err := ParseFTInfo(good)
	if err != nil || info != (FTInfo{NumDocs: 42, MutationQueueSize: 3, IndexingFailures: 1, BackfillDone: 1}) {
		t.Fatalf("ParseFTInfo = %+v, %v", info, err)
	}
	// The backfill as valkey-search 1.2.1 writes it: "%d" and "%f" strings.
	backfilling := l(s("num_docs"), int64(7), s("mutation_queue_size"), s("0"), s("backfill_in_progress"), s("1"), s("backfill_complete_percent"), s("0.250000"))
	if info, err := ParseFTInfo(backfilling); err != nil || info != (FTInfo{NumDocs: 7, Backfill: true, BackfillDone: 0.25}) {
		t.Fatalf("ParseFTInfo(backfilling) = %+v, %v", info, err)
	}
	for name, bad := range map[string]any{
		"scalar":         s("OK"),
		"odd":            l(s("num_docs")),
		"list as name":   l(l(), s("1")),
		"no num_docs":    l(s("mutation_queue_size"), s("0")),
		"no queue":       l(s("num_docs"), s("0")),
		"not a number":   l(s("num_docs"), s("many"), s("mutation_queue_size"), s("0")),
		"fraction":       l(s("num_docs"), s("1.5"), s("mutation_queue_size"), s("0")),
		"list as number": l(s("num_docs"), l(), s("mutation_queue_size"), s("0")),
		"null as number": l(s("num_docs"), nil, s("mutation_queue_size"), s("0")),
		"huge":           l(s("num_docs"), s("1e300"), s("mutation_queue_size"), s("0")),
		"percent > 1":    l(s("num_docs"), s("1"), s("mutation_queue_size"), s("0"), s("backfill_complete_percent"), s("100")),
		"percent NaN":    l(s("num_docs"), s("1"), s("mutation_queue_size"), s("0"), s("backfill_complete_percent"), s("nan")),
	} {
		if _, err := ParseFTInfo(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestParseFTAttributes(t *testing.T) {
	good := l(s("index_name"), s("x"), s("attributes"), l(
		l(s("identifier"), s("title"), s("attribute"), s("title"), s("type"), s("TEXT")),
		l(s("identifier"), s("price"), s("attribute"), s("price"), s("type"), s("NUMERIC")),
		l(s("identifier"), s("v"), s("attribute"), s("v"), s("type"), s("VECTOR"),
			s("index"), l(s("capacity"), int64(10240), s("dimensions"), int64(2), s("distance_metric"), s("IP"), s("size"), s("0")))),
		s("num_docs"), s("0"))
	got, err := ParseFTAttributes(good)
	if err != nil || len(got) != 3 || got["title"] != (FTAttribute{Type: "TEXT"}) || got["price"] != (FTAttribute{Type: "NUMERIC"}) ||
		got["v"] != (FTAttribute{Type: "VECTOR", DistanceMetric: "IP"}) {
		t.Fatalf("ParseFTAttributes = %v, %v", got, err)
	}
	for name, bad := range map[string]any{
		"scalar":            s("OK"),
		"no attributes":     l(s("num_docs"), s("0")),
		"attributes scalar": l(s("attributes"), s("none")),
		"attribute scalar":  l(s("attributes"), l(s("title"))),
		"attribute odd":     l(s("attributes"), l(l(s("identifier")))),
		"no type":           l(s("attributes"), l(l(s("identifier"), s("title")))),
		"no identifier":     l(s("attributes"), l(l(s("type"), s("TEXT")))),
		"type list":         l(s("attributes"), l(l(s("identifier"), s("t"), s("type"), l()))),
		"vector no index":   l(s("attributes"), l(l(s("identifier"), s("v"), s("type"), s("VECTOR")))),
		"vector no metric":  l(s("attributes"), l(l(s("identifier"), s("v"), s("type"), s("VECTOR"), s("index"), l(s("dimensions"), int64(2))))),
	} {
		if _, err := ParseFTAttributes(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestParseSearchKeys(t *testing.T) {
	total, keys, err := ParseSearchKeys(l(s("7"), s("p:1"), s("p:2")))
	if err != nil || total != 7 || strings.Join(keys, ",") != "p:1,p:2" {
		t.Fatalf("= %d %v %v", total, keys, err)
	}
	for name, bad := range map[string]any{
		"empty":        l(),
		"scalar":       s("1"),
		"bad total":    l(s("x")),
		"negative":     l(s("-1")),
		"with content": l(s("1"), s("p:1"), l(s("f"), s("v"))),
	} {
		if _, _, err := ParseSearchKeys(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestParseInfo(t *testing.T) {
	m, err := ParseInfo("# Server\r\nvalkey_version:9.1.0\r\nredis_version:7.2.4\r\n\r\n# Modules\r\nmodule:name=search,ver=66048,api=1\r\n")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := ServerVersion(m); v != "9.1.0" {
		t.Fatalf("ServerVersion = %q", v)
	}
	// INFO modules repeats "module", one line per module.
	modules := "# Modules\r\nmodule:name=json,ver=10002,api=1\r\nmodule:name=search,ver=66048,api=1\r\nmodule:name=ldap,ver=10101,api=1\r\n"
	if v, ok, err := SearchModuleVersion(modules); v != "1.2.0" || !ok || err != nil {
		t.Fatalf("SearchModuleVersion = %q %v %v", v, ok, err)
	}
	if _, ok, err := SearchModuleVersion("# Modules\r\nmodule:name=json,ver=10002\r\n"); ok || err != nil {
		t.Fatalf("a search module found among others: %v %v", ok, err)
	}
	if _, err := ParseInfo("no colon here"); err == nil {
		t.Fatal("a line without a colon was accepted")
	}
	if _, err := SearchStats(map[string]string{"search_writer_queue_size": "lots"}); err == nil {
		t.Fatal("a non-number was accepted")
	}
	st, err := SearchStats(map[string]string{"search_writer_queue_size": "4", "ingest_hash_keys": "9", "search_ingest_field_vector": "3"})
	if err != nil || st["queue_depth"] != 4 || st["ingest_hash_keys"] != 9 || st["ingest_field_vector"] != 3 {
		t.Fatalf("SearchStats = %v %v", st, err)
	}
}

func TestDecodeModuleVersion(t *testing.T) {
	for n, want := range map[int64]string{66048: "1.2.0", 66049: "1.2.1", 10201: "1.2.1", 20810: "2.8.10", 65792: "1.1.0"} {
		if got := decodeModuleVersion(n); got != want {
			t.Errorf("decodeModuleVersion(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestWordsAndClauses(t *testing.T) {
	if got := strings.Join(Words("Lot foot, lot will. It's the END", false), " "); got != "lot foot s end" {
		t.Fatalf("Words = %q", got)
	}
	if got := strings.Join(Words("IT-500", true), " "); got != "it 500" {
		t.Fatalf("Words(keep) = %q", got)
	}
	if got := escapeTag("a b|c}"); got != `a\ b\|c\}` {
		t.Fatalf("escapeTag = %q", got)
	}
	got := Batches([]int{5, 5, 5, 20, 1}, 10)
	if len(got) != 4 || got[0] != [2]int{0, 2} || got[3] != [2]int{4, 5} {
		t.Fatalf("Batches = %v", got)
	}
	if got := Batches([]int{1, 1, 1}, 0); len(got) != 3 {
		t.Fatalf("Batches(limit 0) = %v, want one each", got)
	}
	for name, ok := range map[string]bool{"p": true, "p-2": true, "p-exact": true, "p-idle-3": true, "p-x": false, "pq": false, "p-idle-": false} {
		if ownsIndex("p", name) != ok {
			t.Errorf("ownsIndex(p, %s) != %v", name, ok)
		}
	}
}

// decodeValue builds a reply value (as ToAny gives it) from fuzz bytes:
// each byte either opens a list (of the next byte's count, mod 6), is a
// null, an integer, or a string of the next bytes.
func decodeValue(b []byte, depth int) (any, []byte) {
	if len(b) == 0 || depth > 20 {
		return nil, nil
	}
	switch c := b[0]; {
	case c%4 == 0:
		n := 0
		if len(b) > 1 {
			n = int(b[1] % 6)
			b = b[2:]
		} else {
			b = nil
		}
		v := []any{}
		for range n {
			var item any
			item, b = decodeValue(b, depth+1)
			v = append(v, item)
		}
		return v, b
	case c%4 == 1:
		return nil, b[1:]
	case c%8 == 3:
		return int64(c) - 128, b[1:]
	default:
		n := min(int(c%8), len(b)-1)
		return string(b[1 : 1+n]), b[1+n:]
	}
}

func FuzzParseFTInfo(f *testing.F) {
	f.Add([]byte{0, 4, 2, 'n', 2, 'x', 2, '1', 2, '2'})
	f.Add([]byte("\x00\x05\x0anum_docs\x03\x31\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, _ := decodeValue(b, 0)
		ParseFTInfo(v)
		ParseFTAttributes(v)
		ParseSearchKeys(v)
		pairs(v)
	})
}

func FuzzParseInfo(f *testing.F) {
	f.Add("# Server\r\nvalkey_version:9.1.0\r\n# Modules\r\nmodule:name=search,ver=66048\r\n")
	f.Add("search_writer_queue_size:1e309\nmodule:name=search,ver=-1")
	f.Add("module:name=search,ver=99999999999999999999")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := ParseInfo(text)
		if err != nil {
			return
		}
		SearchStats(m)
		ServerVersion(m)
		SearchModuleVersion(text)
	})
}

func FuzzQueryBuilding(f *testing.F) {
	f.Add("Lot foot, lot will.", "a|b}")
	f.Add("IT-500 \\ \"quoted\" @field:{x}", "")
	f.Fuzz(func(t *testing.T, text, tag string) {
		for _, w := range Words(text, false) {
			for _, r := range w {
				if strings.ContainsRune(`|(){}[]"@\-*%:;$ `, r) {
					t.Fatalf("word %q carries query syntax", w)
				}
			}
		}
		e := escapeTag(tag)
		for i := 0; i < len(e); i++ {
			if strings.IndexByte("|}", e[i]) >= 0 && (i == 0 || e[i-1] != '\\') {
				t.Fatalf("escapeTag(%q) = %q leaves %q bare", tag, e, e[i])
			}
		}
	})
}
