// Package quote decides what of a server's text or a user's credentials an
// error message may show: a server's text clipped to MaxLen at a character
// boundary (Clip), an unreadable answer's first bytes (Unreadable), every
// secret removed in every form a driver sends it (Scrubber, Redact,
// RedactString) and a URL without its password (SafeURL).
package quote
