package valkey

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ParseInfo reads INFO's text: "# Section" headers, "name:value" lines,
// blank lines. A line that is neither is an error: the reply is not INFO
// output. Names are unique across sections except INFO modules' "module",
// one line per loaded module (the bundle loads four): a map keeps only the
// last, so SearchModuleVersion reads that section's text itself.
func ParseInfo(text string) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, val, ok := strings.Cut(line, ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("INFO line %d is not name:value: %.40q", i+1, line)
		}
		out[name] = val
	}
	return out, nil
}

// searchStats maps INFO search fields onto the names Stats reports. The
// runner's ladder table reads "queue_depth". Valkey prefixes a module's INFO
// fields with the module's name, developer fields (section
// search_global_ingestion) included — "search_ingest_hash_keys" appears so
// in a public INFO SEARCH dump of a valkey-search server; the bare names
// are taken too, in case a build shows them unprefixed.
var searchStats = []struct{ stat, field string }{
	{"queue_depth", "writer_queue_size"},
	{"query_queue_size", "query_queue_size"},
	{"used_write_cpu", "used_write_cpu"},
	{"used_read_cpu", "used_read_cpu"},
	{"ingest_hash_keys", "ingest_hash_keys"},
	{"ingest_hash_blocked", "ingest_hash_blocked"},
	{"ingest_field_vector", "ingest_field_vector"},
	{"ingest_field_text", "ingest_field_text"},
	{"ingest_field_tag", "ingest_field_tag"},
	{"ingest_field_numeric", "ingest_field_numeric"},
	{"number_of_indexes", "number_of_indexes"},
}

// SearchStats picks the search module's gauges and counters out of parsed
// INFO search; a field that is absent is left out, one that is not a number
// is an error.
func SearchStats(info map[string]string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, s := range searchStats {
		raw, ok := info["search_"+s.field]
		if !ok {
			raw, ok = info[s.field]
		}
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil {
			return nil, fmt.Errorf("INFO search: %s=%q is not a number", s.field, raw)
		}
		out[s.stat] = f
	}
	return out, nil
}

// ServerVersion reads the server's version from parsed INFO server:
// valkey_version, or redis_version from servers that predate it.
func ServerVersion(info map[string]string) (string, error) {
	for _, k := range []string{"valkey_version", "redis_version"} {
		if v := info[k]; v != "" {
			return v, nil
		}
	}
	return "", errors.New("INFO server has neither valkey_version nor redis_version")
}

// SearchModuleVersion finds the search module in INFO modules' text
// ("module:name=search,ver=…,…", one such line per module) and decodes its
// version. ok is false when the module is not loaded.
func SearchModuleVersion(text string) (version string, ok bool, err error) {
	for _, line := range strings.Split(text, "\n") {
		rest, found := strings.CutPrefix(strings.TrimRight(line, "\r"), "module:")
		if !found {
			continue
		}
		attrs := map[string]string{}
		for _, kv := range strings.Split(rest, ",") {
			if n, v, found := strings.Cut(kv, "="); found {
				attrs[n] = v
			}
		}
		if attrs["name"] != "search" {
			continue
		}
		n, perr := strconv.ParseInt(attrs["ver"], 10, 64)
		if perr != nil || n < 0 {
			return "", true, fmt.Errorf("INFO modules: search ver=%q is not a version number", attrs["ver"])
		}
		return decodeModuleVersion(n), true, nil
	}
	return "", false, nil
}

// decodeModuleVersion turns a module's integer version into x.y.z.
// valkey-search's version is kModuleVersion = vmsdk::ValkeyVersion(1, 2, 0)
// at tag 1.2.0, the module the pinned bundle 9.1.0 builds (1.2.1 on its
// branch's later head),
// which packs (major<<16)|(minor<<8)|patch (src/version.h,
// vmsdk/src/utils.h); that this integer is what INFO modules shows is
// unconfirmed, and modules in the RedisModule tradition write
// major*10000+minor*100+patch, so both are recognised: the shifted form is
// taken when its minor and patch bytes are both below 100.
func decodeModuleVersion(n int64) string {
	if n >= 1<<16 {
		major, minor, patch := n>>16, (n>>8)&0xff, n&0xff
		if minor < 100 && patch < 100 {
			return fmt.Sprintf("%d.%d.%d", major, minor, patch)
		}
	}
	return fmt.Sprintf("%d.%d.%d", n/10000, n/100%100, n%100)
}
