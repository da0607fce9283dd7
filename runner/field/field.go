// Package field is a plan's fault in one field's value (Error), shared by
// the runner's rooms, each of which validates its own configuration.
package field

import "fmt"

// Error is a plan that cannot run because of one field's value, as
// Validate finds it before anything starts. Its message names the field as
// a Go program sets it ("Plan.Closed.SpawnRate: 0 must be > 0"); Flag is the
// same setting as the CLI and scenario files name it, so that they can say
// it in their users' words (Setting). A fault that another package found (a
// driver's, the container options') is Err, with the message that package
// wrote, which names the setting already.
type Error struct {
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

func (e *Error) Error() string { return e.Field + ": " + e.Reason() }

// Unwrap is the other package's error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Reason is what is wrong, without the field's name.
func (e *Error) Reason() string {
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
func (e *Error) Setting() string {
	if e.Flag == "" {
		return e.Reason()
	}
	return e.Flag + ": " + e.Reason()
}

// New is field's fault, flag being its name on the command line.
func New(field, flag, format string, args ...any) error {
	return &Error{Field: field, Flag: flag, Msg: fmt.Sprintf(format, args...)}
}

// In puts an error of a member's Validate under the member's name: a
// *Error's path gets parent in front of it; any other error (another
// package's) becomes parent's Error.
func In(parent string, err error) error {
	if err == nil {
		return nil
	}
	fe, ok := err.(*Error)
	if !ok {
		return &Error{Field: parent, Err: err}
	}
	c := *fe
	c.Field = parent
	if fe.Field != "" {
		c.Field += "." + fe.Field
	}
	return &c
}
