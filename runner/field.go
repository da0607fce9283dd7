package runner

import (
	"fmt"
	"reflect"
)

// FieldError is a plan that cannot run because of one field's value, as
// Validate finds it before anything starts. Its message names the field as
// a Go program sets it ("Plan.Closed.SpawnRate: 0 must be > 0"); Flag is the
// same setting as the CLI and scenario files name it, so that they can say
// it in their users' words (Setting). A fault that another package found (a
// driver's, the container options') is Err, with the message that package
// wrote, which names the setting already.
type FieldError struct {
	// Field is the path of the field from the value validated: from Plan
	// once Plan.Validate returns it ("Plan.Ladder.Open.Workers").
	Field string
	// Flag is the setting's name on the command line ("workers"); empty
	// when Err's message names the setting itself.
	Flag string
	// Msg is what is wrong with the value; empty: Err's message.
	Msg string
	Err error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason() }

// Unwrap is the other package's error, if any.
func (e *FieldError) Unwrap() error { return e.Err }

// Reason is what is wrong, without the field's name.
func (e *FieldError) Reason() string {
	switch {
	case e.Msg != "":
		return e.Msg
	case e.Err != nil:
		return e.Err.Error()
	}
	return "invalid value"
}

// Setting is the message in the CLI's words: the flag, then the reason; an
// error another package found keeps its own message.
func (e *FieldError) Setting() string {
	if e.Flag == "" {
		return e.Reason()
	}
	return e.Flag + ": " + e.Reason()
}

// fieldErr is field's fault, flag being its name on the command line.
func fieldErr(field, flag, format string, args ...any) error {
	return &FieldError{Field: field, Flag: flag, Msg: fmt.Sprintf(format, args...)}
}

// inField puts an error of a member's Validate under the member's name: a
// FieldError's path gets parent in front of it; any other error (another
// package's) becomes parent's FieldError.
func inField(parent string, err error) error {
	if err == nil {
		return nil
	}
	fe, ok := err.(*FieldError)
	if !ok {
		return &FieldError{Field: parent, Err: err}
	}
	c := *fe
	c.Field = parent
	if fe.Field != "" {
		c.Field += "." + fe.Field
	}
	return &c
}

// isNil says whether v is nil or an interface holding a nil pointer (or
// map, slice, func, channel): a typed nil compares unequal to nil, and
// calling its methods panics.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch r := reflect.ValueOf(v); r.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return r.IsNil()
	}
	return false
}
