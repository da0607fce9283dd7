package valkeyfake

import (
	"fmt"
	"strings"
)

func cmdPing(_ *Server, c *conn, _ []string) { c.w.simple("PONG") }

// cmdHello is HELLO 3 [AUTH default password], valkey-go's handshake. A
// client without the password gets the server's NOAUTH, which valkey-go
// reports.
func cmdHello(s *Server, c *conn, args []string) {
	if len(args) < 2 || args[1] != "3" {
		c.w.err("ERR valkeyfake: only HELLO 3 (RESP3) is modelled")
		return
	}
	for i := 2; i < len(args); i += 3 {
		if !strings.EqualFold(args[i], "AUTH") || i+2 >= len(args) {
			c.w.err(fmt.Sprintf("ERR Syntax error in HELLO option '%s'", args[i]))
			return
		}
		if s.opts.Password == "" || args[i+1] != "default" || args[i+2] != s.opts.Password {
			c.w.err("WRONGPASS invalid username-password pair or user is disabled.")
			return
		}
		c.authed = true
	}
	if !c.authed {
		c.w.err("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	c.w.value(dict{"server", "valkey", "version", ValkeyVersion, "proto", 3, "id", c.id,
		"mode", "standalone", "role", "master", "modules", list{}})
}

// cmdClient answers CLIENT SETINFO, which valkey-go sends after HELLO.
func cmdClient(_ *Server, c *conn, args []string) {
	if len(args) > 1 && strings.EqualFold(args[1], "SETINFO") {
		c.w.simple("OK")
		return
	}
	c.w.err("ERR valkeyfake: only CLIENT SETINFO is modelled")
}
