//go:build !linux

package httpwire

// closedByPeer cannot ask the socket here: an idle connection counts as
// open, and a request on one the server closed fails (see the Linux file).
func (fc *fastConn) closedByPeer() bool { return false }

func (fc *fastConn) peek(fd uintptr) bool { return true }
