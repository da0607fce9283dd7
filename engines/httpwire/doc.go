// Package httpwire is what the HTTP drivers share on the wire: FastClient,
// the fasthttp-framed client of their hot calls (search, upsert, delete,
// get) with its own keep-alive pool and dead-connection checks;
// RoundTripper, which puts an official client library's calls on the same
// FastClient; Transport, the net/http transport of everything else; the
// classes an unexpected HTTP status or a transport failure means
// (StatusClass, StatusError, TransportError); and DecodeDocument, which
// reads a document a JSON engine returned. A driver adds only what its
// engine documents beyond these.
package httpwire
