package valkeyfake

import (
	"fmt"
	"strconv"
	"strings"
)

func cmdPing(_ *Server, c *conn, args []string) {
	if len(args) > 1 {
		c.w.bulk(args[1])
		return
	}
	c.w.simple("PONG")
}

func cmdEcho(_ *Server, c *conn, args []string) {
	if arity(c, args, 2) {
		c.w.bulk(args[1])
	}
}

func cmdSelect(_ *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	if args[1] != "0" {
		// Valkey has 16 databases; the fake keeps one.
		c.w.err("ERR valkeyfake: only database 0 is modelled")
		return
	}
	c.w.simple("OK")
}

func (s *Server) checkAuth(user, pass string) bool {
	return s.opts.Password != "" && user == s.opts.Username && pass == s.opts.Password
}

const wrongPass = "WRONGPASS invalid username-password pair or user is disabled."

func cmdAuth(s *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	user, pass := "default", args[1]
	if len(args) > 2 {
		user, pass = args[1], args[2]
	}
	if s.opts.Password == "" {
		c.w.err("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
		return
	}
	if !s.checkAuth(user, pass) {
		c.w.err(wrongPass)
		return
	}
	c.authed = true
	c.w.simple("OK")
}

func cmdHello(s *Server, c *conn, args []string) {
	proto := c.w.proto
	if len(args) > 1 {
		p, err := strconv.Atoi(args[1])
		if err != nil {
			c.w.err("ERR Protocol version is not an integer or out of range")
			return
		}
		if p != 2 && p != 3 {
			c.w.err("NOPROTO unsupported protocol version")
			return
		}
		proto = p
	}
	for i := 2; i < len(args); i++ {
		switch strings.ToUpper(args[i]) {
		case "AUTH":
			if i+2 >= len(args) {
				c.w.err("ERR Syntax error in HELLO option 'AUTH'")
				return
			}
			if !s.checkAuth(args[i+1], args[i+2]) {
				c.w.err(wrongPass)
				return
			}
			c.authed = true
			i += 2
		case "SETNAME":
			i++
		default:
			c.w.err(fmt.Sprintf("ERR Syntax error in HELLO option '%s'", args[i]))
			return
		}
	}
	if !c.authed {
		c.w.err("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	c.w.proto = proto
	c.w.value(dict{"server", "valkey", "version", ValkeyVersion, "proto", proto, "id", c.id,
		"mode", "standalone", "role", "master", "modules", list{}})
}

func cmdClient(_ *Server, c *conn, args []string) {
	if !arity(c, args, 2) {
		return
	}
	switch strings.ToUpper(args[1]) {
	case "ID":
		c.w.int(c.id)
	case "SETINFO", "SETNAME", "TRACKING", "NO-EVICT", "NO-TOUCH":
		c.w.simple("OK")
	default:
		c.w.err(fmt.Sprintf("ERR unknown subcommand '%s'. Try CLIENT HELP.", args[1]))
	}
}
