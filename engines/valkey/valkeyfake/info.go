package valkeyfake

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// cmdInfo answers INFO [section …] with the sections a driver reads:
// server, clients, modules and the module's search_* sections (INFO search).
// The developer-only global_ingestion counters appear only after
// CONFIG SET search.info-developer-visible yes.
func cmdInfo(s *Server, c *conn, args []string) {
	want := map[string]bool{}
	for _, a := range args[1:] {
		want[strings.ToLower(a)] = true
	}
	all := len(want) == 0 || want["all"] || want["everything"] || want["default"]
	var b strings.Builder
	if all || want["server"] {
		fmt.Fprintf(&b, "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:%s\r\nvalkey_release_stage:ga\r\nredis_mode:standalone\r\nos:%s\r\narch_bits:64\r\ntcp_port:%s\r\nuptime_in_seconds:%d\r\n\r\n",
			ValkeyVersion, runtime.GOOS, s.Addr()[strings.LastIndexByte(s.Addr(), ':')+1:], int(time.Since(s.start).Seconds()))
	}
	if all || want["clients"] {
		fmt.Fprintf(&b, "# Clients\r\nconnected_clients:%d\r\nmaxclients:10000\r\n\r\n", s.clients.Load())
	}
	if all || want["modules"] {
		// The bundle's four modules, one "module" line each, search third.
		fmt.Fprintf(&b, "# Modules\r\nmodule:name=json,ver=10002,api=1,filters=0,usedby=[],using=[],options=[handle-io-errors]\r\nmodule:name=bf,ver=10001,api=1,filters=0,usedby=[],using=[],options=[]\r\nmodule:name=search,ver=%d,api=1,filters=0,usedby=[],using=[],options=[handle-io-errors|handle-repl-async-load]\r\nmodule:name=ldap,ver=10101,api=1,filters=0,usedby=[],using=[],options=[]\r\n\r\n", searchVersionInt)
	}
	if all || want["search"] {
		s.writeSearchInfo(&b)
	}
	c.w.bulk(b.String())
}

func (s *Server) writeSearchInfo(b *strings.Builder) {
	s.mu.Lock()
	n := len(s.indexes)
	docs := 0
	for _, ix := range s.indexes {
		docs += len(ix.docs)
	}
	dev := s.config["search.info-developer-visible"] == "yes"
	s.mu.Unlock()
	fmt.Fprintf(b, "# search_index_stats\r\nsearch_number_of_indexes:%d\r\nsearch_total_indexed_documents:%d\r\nsearch_total_active_write_threads:%d\r\n\r\n", n, docs, s.writers.active())
	fmt.Fprintf(b, "# search_thread-pool\r\nsearch_query_queue_size:0\r\nsearch_writer_queue_size:%d\r\nsearch_worker_pool_suspend_cnt:0\r\nsearch_used_read_cpu:0\r\nsearch_used_write_cpu:0\r\n\r\n", s.writerQueue.Load())
	if dev {
		fmt.Fprintf(b, "# search_global_ingestion\r\nsearch_ingest_hash_keys:%d\r\nsearch_backfill_hash_keys:%d\r\nsearch_ingest_hash_blocked:%d\r\nsearch_ingest_field_vector:%d\r\nsearch_ingest_field_numeric:%d\r\nsearch_ingest_field_tag:%d\r\nsearch_ingest_field_text:%d\r\n\r\n",
			s.ingestKeys.Load(), s.backfillKeys.Load(), s.blocked.Load(), s.ingestFields[typeVector].Load(), s.ingestFields[typeNumeric].Load(), s.ingestFields[typeTag].Load(), s.ingestFields[typeText].Load())
	}
}

func (l *limiter) active() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.used
}

// cmdConfig implements CONFIG GET and CONFIG SET for the settings the fake
// knows; an unknown name is rejected as valkey does.
func cmdConfig(s *Server, c *conn, args []string) {
	if !arity(c, args, 3) {
		return
	}
	switch strings.ToUpper(args[1]) {
	case "GET":
		s.mu.Lock()
		defer s.mu.Unlock()
		out := dict{}
		for _, pat := range args[2:] {
			for k, v := range s.config {
				if globMatch(strings.ToLower(pat), k) {
					out = append(out, k, v)
				}
			}
		}
		c.w.value(out)
	case "SET":
		if len(args)%2 != 0 {
			c.w.err("ERR wrong number of arguments for 'config|set' command")
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for i := 2; i < len(args); i += 2 {
			name := strings.ToLower(args[i])
			if _, ok := s.config[name]; !ok {
				c.w.err(fmt.Sprintf("ERR Unknown option or number of arguments for CONFIG SET - '%s'", args[i]))
				return
			}
			if err := validConfig(name, args[i+1]); err != nil {
				c.w.err(fmt.Sprintf("ERR CONFIG SET failed (possibly related to argument '%s') - %s", args[i], err))
				return
			}
		}
		for i := 2; i < len(args); i += 2 {
			name := strings.ToLower(args[i])
			s.config[name] = strings.ToLower(args[i+1])
			if name == "search.writer-threads" {
				n, _ := strconv.Atoi(args[i+1])
				s.writers.resize(n)
			}
		}
		c.w.simple("OK")
	default:
		c.w.err(fmt.Sprintf("ERR unknown subcommand '%s'. Try CONFIG HELP.", args[1]))
	}
}

// configRanges bound the numeric settings CONFIG SET takes
// (src/valkey_search_options.cc; src/schema_manager.cc kMaxIndexes).
var configRanges = map[string][2]int64{
	"search.reader-threads": {1, 1024}, "search.writer-threads": {1, 1024}, "search.max-indexes": {1, 10_000_000},
	"search.max-nonvector-search-results-fetched": {0, math.MaxUint32},
}

// validConfig checks a value as Valkey checks a module's numeric or
// boolean setting.
func validConfig(name, v string) error {
	if r, ok := configRanges[name]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return errors.New("argument couldn't be parsed into an integer")
		}
		if n < r[0] || n > r[1] {
			return fmt.Errorf("argument must be between %d and %d inclusive", r[0], r[1])
		}
	}
	if v = strings.ToLower(v); name == "search.info-developer-visible" && v != "yes" && v != "no" {
		return errors.New("argument must be 'yes' or 'no'")
	}
	return nil
}
