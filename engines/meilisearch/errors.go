package meilisearch

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/meilisearch/meilisearch-go"

	"github.com/searchbench/searchbench/engines/httpwire"
	"github.com/searchbench/searchbench/engines/quote"
)

// TaskError is a task that did not succeed.
type TaskError struct {
	UID     int64
	Status  string
	Code    string // Meilisearch's error code, e.g. "missing_document_id"
	Message string
}

func (t *TaskError) Error() string {
	if t.Code == "" {
		return fmt.Sprintf("task %d %s", t.UID, t.Status)
	}
	return fmt.Sprintf("task %d %s: %s: %s", t.UID, t.Status, t.Code, t.Message)
}

func taskError(t *meilisearch.Task) error {
	uid := t.UID
	if uid == 0 {
		uid = t.TaskUID
	}
	status := string(t.Status)
	if status == "" {
		status = "without a status"
	}
	return &TaskError{UID: uid, Status: status, Code: string(t.Error.Code), Message: quote.Clip(t.Error.Message)}
}

// fail wraps err with the operation's context and the runner's error class;
// nil stays nil.
func (e *Engine) fail(what string, err error) error {
	if err == nil {
		return nil
	}
	err = classify(err)
	return fmt.Errorf("meilisearch: %s: %w", what, e.secrets.Error(err))
}

// classify turns a client error into a short message wrapping the runner's
// class. It never uses the client's own message, which can quote whole
// request and response bodies.
func classify(err error) error {
	var me *meilisearch.Error
	if !errors.As(err, &me) {
		return err
	}
	switch me.ErrCode {
	case meilisearch.APIError, meilisearch.APIErrorWithoutMessage:
		return apiError(me)
	case meilisearch.TimeoutError, meilisearch.CommunicationError:
		return transportError(me.OriginError)
	case meilisearch.ErrCodeResponseUnmarshalBody:
		return fmt.Errorf("malformed response (HTTP %d): %v", me.StatusCode, me.OriginError)
	}
	if me.OriginError != nil {
		return fmt.Errorf("%s %s: %w", me.Method, me.Endpoint, me.OriginError)
	}
	return fmt.Errorf("%s %s: client error %d", me.Method, me.Endpoint, me.ErrCode)
}

// HTTPError is a response with a status the call did not expect.
type HTTPError struct {
	Status  int
	Code    string // Meilisearch's error code, if the body had one
	Message string
}

func (h *HTTPError) Error() string {
	if h.Code == "" {
		return fmt.Sprintf("HTTP %d", h.Status)
	}
	return fmt.Sprintf("HTTP %d %s: %s", h.Status, h.Code, h.Message)
}

func apiError(me *meilisearch.Error) error {
	return httpError(me.StatusCode, me.APIError.Code, me.APIError.Message)
}

// httpError classifies an answer with an unexpected status by its status
// (httpwire.StatusError) and Meilisearch's error code: a 404 is a missing
// document only with one of notFoundCodes.
func httpError(status int, code meilisearch.APIErrCode, message string) error {
	h := &HTTPError{Status: status, Code: string(code), Message: quote.Clip(message)}
	if h.Code == "" {
		h.Message = ""
	}
	return httpwire.StatusError(status, slices.Contains(notFoundCodes, code), h)
}

// answerError classifies an answer with a status the call did not expect,
// by the status and the code of Meilisearch's error body ({"message",
// "code", "type", "link"}); a body without a code is a plain HTTP error.
func answerError(status int, answer []byte) error {
	var a struct{ Code, Message string }
	_ = json.Unmarshal(answer, &a)
	return httpError(status, meilisearch.APIErrCode(a.Code), a.Message)
}

// notFoundCodes are the 404 codes that mean a document is missing. A
// missing index is not among them: it is a broken setup (httpwire.StatusError),
// and as a not-found a delete or a get of a vanished index would count as
// done. Meilisearch's error codes:
// https://www.meilisearch.com/docs/reference/errors/error_codes
// (meilisearch-go v0.37.0 error.go names it APIErrCodeDocumentNotFound).
var notFoundCodes = []meilisearch.APIErrCode{meilisearch.APIErrCodeDocumentNotFound}

// transportError keeps the cause's class (httpwire.TransportError): the
// client reports a canceled context as a timeout, and a client timeout as a
// communication error, so the class is read from the cause it carries.
func transportError(origin error) error {
	if origin == nil {
		return errors.New("no response")
	}
	return httpwire.TransportError(origin)
}
