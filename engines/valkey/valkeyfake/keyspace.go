package valkeyfake

import (
	"sort"
	"strconv"
	"strings"
	"sync"
)

func cmdHset(s *Server, c *conn, args []string) {
	if len(args) < 4 || len(args)%2 != 0 {
		c.w.err("ERR wrong number of arguments for 'hset' command")
		return
	}
	key := args[1]
	s.mu.Lock()
	h := s.hashes[key]
	if h == nil {
		h = map[string]string{}
		s.hashes[key] = h
	}
	added := 0
	for i := 2; i < len(args); i += 2 {
		if _, ok := h[args[i]]; !ok {
			added++
		}
		h[args[i]] = args[i+1]
	}
	done := s.mutateLocked(key)
	s.mu.Unlock()
	s.wait(done)
	c.w.int(int64(added))
}

// cmdHgetall is HGETALL key: the hash's fields and values (a map in RESP3,
// a flat array in RESP2), empty for a missing key. Its arity is exactly 2
// (Valkey's command table), so extra arguments are refused.
func cmdHgetall(s *Server, c *conn, args []string) {
	if len(args) != 2 {
		c.w.err("ERR wrong number of arguments for 'hgetall' command")
		return
	}
	s.mu.Lock()
	h := s.hashes[args[1]]
	fields := make([]string, 0, len(h))
	for f := range h {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	c.w.mapHeader(len(fields))
	for _, f := range fields {
		c.w.bulk(f)
		c.w.bulk(h[f])
	}
	s.mu.Unlock()
}

func cmdDel(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	var n int64
	var waits []*sync.WaitGroup
	s.mu.Lock()
	for _, k := range args[1:] {
		if _, ok := s.hashes[k]; ok {
			delete(s.hashes, k)
			n++
			waits = append(waits, s.mutateLocked(k))
		}
	}
	s.mu.Unlock()
	s.wait(waits...)
	c.w.int(n)
}

func cmdExists(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	var n int64
	s.mu.Lock()
	for _, k := range args[1:] {
		if _, ok := s.hashes[k]; ok {
			n++
		}
	}
	s.mu.Unlock()
	c.w.int(n)
}

// cmdScan iterates keys in sorted order; the cursor is the position after
// the last key returned.
func cmdScan(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	cursor, err := strconv.Atoi(args[1])
	if err != nil || cursor < 0 {
		c.w.err("ERR invalid cursor")
		return
	}
	pattern, count := "*", 10
	for i := 2; i < len(args); i++ {
		switch strings.ToUpper(args[i]) {
		case "MATCH":
			if i+1 >= len(args) {
				c.w.err("ERR syntax error")
				return
			}
			i++
			pattern = args[i]
		case "COUNT":
			if i+1 >= len(args) {
				c.w.err("ERR syntax error")
				return
			}
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil || n < 1 {
				c.w.err("ERR syntax error")
				return
			}
			count = n
		case "TYPE":
			i++
		default:
			c.w.err("ERR syntax error")
			return
		}
	}
	s.mu.Lock()
	keys := make([]string, 0, len(s.hashes))
	for k := range s.hashes {
		keys = append(keys, k)
	}
	s.mu.Unlock()
	sort.Strings(keys)
	var out []string
	next := 0
	for i := cursor; i < len(keys); i++ {
		if globMatch(pattern, keys[i]) {
			out = append(out, keys[i])
		}
		if i+1-cursor >= count {
			next = i + 1
			break
		}
	}
	if next >= len(keys) {
		next = 0
	}
	c.w.array(2)
	c.w.bulk(strconv.Itoa(next))
	c.w.bulks(out)
}

// globMatch supports the glob forms a key-prefix scan uses: '*', '?' and
// backslash escapes.
func globMatch(pattern, s string) bool {
	if pattern == "" {
		return s == ""
	}
	switch pattern[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if globMatch(pattern[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return s != "" && globMatch(pattern[1:], s[1:])
	case '\\':
		if len(pattern) > 1 {
			pattern = pattern[1:]
		}
	}
	return s != "" && s[0] == pattern[0] && globMatch(pattern[1:], s[1:])
}
