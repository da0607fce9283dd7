package valkeyfake

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

func cmdHset(s *Server, c *conn, args []string) {
	if len(args) < 4 || len(args)%2 != 0 {
		c.w.err("ERR wrong number of arguments for 'hset' command")
		return
	}
	s.mu.Lock()
	h := s.hashes[args[1]]
	if h == nil {
		h = map[string]string{}
		s.hashes[args[1]] = h
	}
	added := 0
	for i := 2; i < len(args); i += 2 {
		if _, ok := h[args[i]]; !ok {
			added++
		}
		h[args[i]] = args[i+1]
	}
	done := s.mutateLocked(args[1])
	s.mu.Unlock()
	s.wait(done)
	c.w.value(added)
}

// cmdHgetall is HGETALL key: the hash's fields and values, empty for a
// missing key. Its arity is exactly 2 (Valkey's command table).
func cmdHgetall(s *Server, c *conn, args []string) {
	if len(args) != 2 {
		c.w.err("ERR wrong number of arguments for 'hgetall' command")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hashes[args[1]]
	reply := dict{}
	for _, f := range slices.Sorted(maps.Keys(h)) {
		reply = append(reply, f, h[f])
	}
	c.w.value(reply)
}

// cmdDel is DEL and UNLINK: how many of the keys were there (a key named
// twice counts twice, as in Valkey).
func cmdDel(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	var waits []*sync.WaitGroup
	s.mu.Lock()
	for _, k := range args[1:] {
		if _, ok := s.hashes[k]; ok {
			delete(s.hashes, k)
			waits = append(waits, s.mutateLocked(k))
		}
	}
	s.mu.Unlock()
	s.wait(waits...)
	c.w.value(len(waits))
}

// cmdScan is SCAN cursor [MATCH pattern] [COUNT n] over the keys in sorted
// order; the cursor is the position after the last key returned.
func cmdScan(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	cursor, pattern, count, err := parseScan(args)
	if err != nil {
		c.w.err(err.Error())
		return
	}
	s.mu.Lock()
	keys := s.sortedKeysLocked()
	s.mu.Unlock()
	out := []string{}
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
	c.w.value(list{strconv.Itoa(next), out})
}

func parseScan(args []string) (cursor int, pattern string, count int, err error) {
	cursor, err = strconv.Atoi(args[1])
	if err != nil || cursor < 0 {
		return 0, "", 0, errors.New("ERR invalid cursor")
	}
	pattern, count = "*", 10
	for i := 2; i < len(args); i += 2 {
		switch {
		case i+1 >= len(args):
			return 0, "", 0, errors.New("ERR syntax error")
		case strings.EqualFold(args[i], "MATCH"):
			pattern = args[i+1]
		case strings.EqualFold(args[i], "COUNT"):
			if count, err = strconv.Atoi(args[i+1]); err != nil || count < 1 {
				return 0, "", 0, errors.New("ERR syntax error")
			}
		default:
			return 0, "", 0, errors.New("ERR valkeyfake: SCAN takes MATCH and COUNT only")
		}
	}
	return cursor, pattern, count, nil
}

// sortedKeysLocked is the keyspace in sorted order. s.mu is held.
func (s *Server) sortedKeysLocked() []string {
	return slices.Sorted(maps.Keys(s.hashes))
}

// globMatch supports the glob forms the driver's prefix scan and CONFIG GET
// use: '*' and backslash escapes.
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
	case '\\':
		if len(pattern) > 1 {
			pattern = pattern[1:]
		}
	}
	return s != "" && s[0] == pattern[0] && globMatch(pattern[1:], s[1:])
}
