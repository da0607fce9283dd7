package httpwire

import (
	"errors"
	"syscall"
)

// closedByPeer says whether the server closed (or wrote on) an idle
// connection: a recv with MSG_PEEK and MSG_DONTWAIT on the socket, which
// returns at once — 0 bytes at the end of the stream, EAGAIN when nothing
// came. net/http learns the same from the reader goroutine it keeps on each
// idle connection (transport.go, persistConn.readLoop) and never reuses
// such a connection; without the check a request written on it would fail
// and, for a write, could not be sent again (its server may have read it).
// A connection that cannot be asked counts as open.
func (fc *fastConn) closedByPeer() bool {
	if fc.raw == nil {
		return false
	}
	fc.peekDead = false
	if err := fc.raw.Read(fc.peekFn); err != nil {
		return true
	}
	return fc.peekDead
}

// peek is fc.peekFn: one non-blocking recv of a byte, left in the socket.
func (fc *fastConn) peek(fd uintptr) bool {
	n, _, err := syscall.Recvfrom(int(fd), fc.peekBuf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	switch {
	case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EINTR):
	case err != nil, n == 0:
		fc.peekDead = true // reset, or the end of the stream
	default:
		fc.peekDead = true // an answer nobody asked for: not reusable either
	}
	return true // done: never wait for readability
}
