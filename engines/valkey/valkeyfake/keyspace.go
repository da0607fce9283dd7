package valkeyfake

import (
	"errors"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func cmdHset(s *Server, c *conn, args []string) {
	if !arity(c, args, len(args) >= 4 && len(args)%2 == 0) {
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

// cmdHgetall is HGETALL key (arity exactly 2, Valkey's command table).
func cmdHgetall(s *Server, c *conn, args []string) {
	if !arity(c, args, len(args) == 2) {
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
	if !arity(c, args, len(args) >= 2) {
		return
	}
	var waits []*held
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

var globEscape = regexp.MustCompile(`\\(.)`)

// cmdScan is SCAN cursor [MATCH prefix*] [COUNT n], the driver's form (a
// glob-escaped prefix, then '*'), over the keys in sorted order; the cursor
// is the position after the last key returned.
func cmdScan(s *Server, c *conn, args []string) {
	cursor, err := strconv.Atoi(args[min(1, len(args)-1)])
	prefix, count := "", 10
	for i := 2; i+1 < len(args) && err == nil; i += 2 {
		switch v := args[i+1]; {
		case strings.EqualFold(args[i], "MATCH") && strings.HasSuffix(v, "*"):
			prefix = globEscape.ReplaceAllString(v[:len(v)-1], "$1")
		case strings.EqualFold(args[i], "COUNT"):
			count, err = strconv.Atoi(v)
		default:
			err = errors.New("not modelled")
		}
	}
	if err != nil || len(args)%2 != 0 || cursor < 0 || count < 1 {
		c.w.err("ERR valkeyfake: only SCAN cursor [MATCH <escaped prefix>*] [COUNT n] is modelled")
		return
	}
	s.mu.Lock()
	keys := s.sortedKeysLocked()
	s.mu.Unlock()
	from := min(cursor, len(keys))
	next := from + min(count, len(keys)-from)
	out := []string{}
	for _, k := range keys[from:next] {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	if next >= len(keys) {
		next = 0
	}
	c.w.value(list{strconv.Itoa(next), out})
}

// sortedKeysLocked is the keyspace in sorted order. s.mu is held.
func (s *Server) sortedKeysLocked() []string {
	return slices.Sorted(maps.Keys(s.hashes))
}
