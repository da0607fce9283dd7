package esfake

import (
	"fmt"
	"maps"
	"net/http"
)

// esError is an error answer in Elasticsearch's shape:
// {"error":{"root_cause":[{…}],"type":…,"reason":…,…},"status":N}, or, for
// the routing errors that have no exception type (plain),
// {"error":"text","status":N}.
type esError struct {
	status int
	typ    string
	reason string
	extra  map[string]any // more members of the error object (index, resource.id, …)
	root   map[string]any // the root cause, when it is not the error itself
	plain  string
}

func (e *esError) body() map[string]any {
	if e.plain != "" || e.typ == "" {
		msg := e.plain
		if msg == "" {
			msg = e.reason
		}
		return map[string]any{"error": msg, "status": e.status}
	}
	cause := map[string]any{"type": e.typ, "reason": e.reason}
	maps.Copy(cause, e.extra)
	root := cause
	if e.root != nil {
		root = e.root
	}
	top := map[string]any{"root_cause": []any{root}}
	maps.Copy(top, cause)
	return map[string]any{"error": top, "status": e.status}
}

func (e *esError) write(w http.ResponseWriter) { writeJSON(w, e.status, e.body()) }

func newError(status int, typ, format string, args ...any) *esError {
	return &esError{status: status, typ: typ, reason: fmt.Sprintf(format, args...)}
}

// badRequest is a 400 of the given type; typ "" makes a plain one.
func badRequest(typ, format string, args ...any) *esError {
	return newError(http.StatusBadRequest, typ, format, args...)
}

// notImplemented is the fake's own 400 for what Elasticsearch would do and
// this fake does not: an honest refusal instead of a wrong answer.
func notImplemented(format string, args ...any) *esError {
	return badRequest("illegal_argument_exception", "esfake: "+format+" is not implemented by this wire-contract fake", args...)
}

// parsing is a parsing_exception, Elasticsearch's answer to an unknown key
// or a wrong value type in a request body.
func parsing(format string, args ...any) *esError {
	return badRequest("parsing_exception", format, args...)
}

func unauthorized(format string, args ...any) *esError {
	e := newError(http.StatusUnauthorized, "security_exception", format, args...)
	e.extra = map[string]any{"header": map[string]any{"WWW-Authenticate": []string{`Basic realm="security", charset="UTF-8"`, "ApiKey"}}}
	return e
}

func indexNotFound(name string) *esError {
	e := newError(http.StatusNotFound, "index_not_found_exception", "no such index [%s]", name)
	e.extra = map[string]any{"resource.type": "index_or_alias", "resource.id": name, "index_uuid": "_na_", "index": name}
	return e
}

// malformed is Elasticsearch's answer to a body that is not JSON.
func malformed(err error) *esError {
	return badRequest("x_content_parse_exception", "[1:1] Unexpected character or end of input: %v", err)
}
