package valkeyfake

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// cmdInfo answers INFO [section …] with the sections the driver reads:
// server, modules and the module's search_* sections (INFO search). The
// developer-only global_ingestion counters appear only after CONFIG SET
// search.info-developer-visible yes.
func cmdInfo(s *Server, c *conn, args []string) {
	var b strings.Builder
	for _, sec := range args[1:] {
		sec = strings.ToLower(sec)
		all := slices.Contains([]string{"all", "everything", "default"}, sec)
		if all || sec == "server" {
			fmt.Fprintf(&b, "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:%s\r\n\r\n", ValkeyVersion)
		}
		if all || sec == "modules" {
			// The bundle's four modules, one "module" line each, search third.
			fmt.Fprintf(&b, "# Modules\r\nmodule:name=json,ver=10002,api=1,filters=0,usedby=[],using=[],options=[handle-io-errors]\r\nmodule:name=bf,ver=10001,api=1,filters=0,usedby=[],using=[],options=[]\r\nmodule:name=search,ver=%d,api=1,filters=0,usedby=[],using=[],options=[handle-io-errors|handle-repl-async-load]\r\nmodule:name=ldap,ver=10101,api=1,filters=0,usedby=[],using=[],options=[]\r\n\r\n", searchVersionInt)
		}
		if all || sec == "search" {
			s.mu.Lock()
			n, dev := len(s.indexes), s.config["search.info-developer-visible"] == "yes"
			s.mu.Unlock()
			fmt.Fprintf(&b, "# search_index_stats\r\nsearch_number_of_indexes:%d\r\n\r\n", n)
			fmt.Fprintf(&b, "# search_thread-pool\r\nsearch_query_queue_size:0\r\nsearch_writer_queue_size:%d\r\nsearch_used_read_cpu:0\r\nsearch_used_write_cpu:0\r\n\r\n", s.writerQueue.Load())
			if dev {
				fmt.Fprintf(&b, "# search_global_ingestion\r\nsearch_ingest_hash_keys:%d\r\nsearch_backfill_hash_keys:%d\r\nsearch_ingest_hash_blocked:%d\r\nsearch_ingest_field_vector:%d\r\nsearch_ingest_field_numeric:%d\r\nsearch_ingest_field_tag:%d\r\nsearch_ingest_field_text:%d\r\n\r\n",
					s.ingestKeys.Load(), s.backfillKeys.Load(), s.blocked.Load(), s.ingestFields[typeVector].Load(), s.ingestFields[typeNumeric].Load(), s.ingestFields[typeTag].Load(), s.ingestFields[typeText].Load())
			}
		}
	}
	c.w.bulk(b.String())
}

// cmdConfig implements CONFIG GET and CONFIG SET for the module settings
// the driver reads and sets; an unknown name is rejected as Valkey does.
func cmdConfig(s *Server, c *conn, args []string) {
	if !arity(c, args, len(args) >= 3) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch strings.ToUpper(args[1]) {
	case "GET":
		out := dict{}
		for _, pat := range args[2:] {
			for k, v := range s.config {
				if strings.EqualFold(pat, k) { // the driver names settings, no globs
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
		for i := 2; i < len(args); i += 2 {
			if _, ok := s.config[strings.ToLower(args[i])]; !ok {
				c.w.err(fmt.Sprintf("ERR Unknown option or number of arguments for CONFIG SET - '%s'", args[i]))
				return
			}
		}
		for i := 2; i < len(args); i += 2 {
			name := strings.ToLower(args[i])
			s.config[name] = strings.ToLower(args[i+1])
			if n, err := strconv.Atoi(args[i+1]); err == nil && n > 0 && name == "search.writer-threads" {
				s.writers.resize(n)
			}
		}
		c.w.simple("OK")
	default:
		c.w.err(fmt.Sprintf("ERR unknown subcommand '%s'. Try CONFIG HELP.", args[1]))
	}
}
