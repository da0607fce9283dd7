package typesense

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
	"github.com/typesense/typesense-go/v3/typesense"
)

// StatusError is an answer that is not a success, with Typesense's message.
// It unwraps to the class of its status (httpwire.StatusClass): a 404 is
// engines.ErrNotFound only for a missing document (a missing collection's
// 404, "Not Found", is a setup mistake, not a result).
type StatusError struct {
	Status  int // 0 in an import line without a code
	Message string
}

func (e *StatusError) Error() string {
	if e.Status == 0 {
		return e.Message
	}
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
}

func (e *StatusError) Unwrap() error {
	return httpwire.StatusClass(e.Status, strings.HasPrefix(e.Message, missingDocument))
}

// missingDocument starts Typesense's message for a missing document: its
// src/collection.cpp answers 404 "Could not find a document with id: " + id
// (Collection::get, which a delete looks the document up with), while a
// missing collection's 404 says "Not Found".
const missingDocument = "Could not find a document with id"

// statusError reads Typesense's {"message": …} body, or keeps the start of
// a body that is not one.
func statusError(status int, body []byte) *StatusError {
	var m struct {
		Message string `json:"message"`
	}
	msg := string(body)
	if json.Unmarshal(body, &m) == nil && m.Message != "" {
		msg = m.Message
	}
	return &StatusError{Status: status, Message: quote.Clip(msg)}
}

// statusOf is the HTTP status an error carries, or 0.
func statusOf(err error) int {
	var he *typesense.HTTPError
	var se *StatusError
	switch {
	case errors.As(err, &he):
		return he.Status
	case errors.As(err, &se):
		return se.Status
	}
	return 0
}

// classify puts err in the runner's classes.
func classify(err error) error {
	var he *typesense.HTTPError
	if errors.As(err, &he) {
		return statusError(he.Status, he.Body)
	}
	return httpwire.TransportError(err)
}

// fail wraps err with what was done, classified, without the API key.
func (e *Engine) fail(what string, err error) error {
	return e.secrets.Error(fmt.Errorf("typesense: %s: %w", what, classify(err)))
}

// expect is a call's read for a request that must be answered with status
// want: parse reads that answer; another status is a StatusError.
func expect(want int, parse func(answer []byte) error) func(status int, answer []byte) error {
	return func(status int, answer []byte) error {
		if status != want {
			return statusError(status, answer)
		}
		return parse(answer)
	}
}
