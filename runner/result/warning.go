package result

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// WarningKind says what a warning is about, where a reader acts on it: the
// merge recomputes the known-item warnings from the shards' summed checks,
// the reports mark a client-bound window.
type WarningKind uint8

const (
	// WarningOther: any other warning; its text says it all.
	WarningOther WarningKind = iota
	// WarningKnownItems: a warning of the known-item checks (recall under
	// load below the idle recall, totals below the hits returned).
	WarningKnownItems
	// WarningClientBound: the window's figures may be the load
	// generator's rather than the engine's (it was short of CPU or slow to
	// schedule its goroutines).
	WarningClientBound
)

// labels are the kinds' labels: a warning's text begins with its kind's,
// as it always has in result.json and the reports.
var labels = [...]string{WarningOther: "", WarningKnownItems: "known items: ", WarningClientBound: "client-bound: "}

// Warning is one warning of a run, a setup or a window. Its text (String)
// is Scope, the kind's label and Text: "rep 2: client-bound: the
// searchbench process used 97% of its CPUs". In result.json it is that
// text, as warnings always were; reading it back recovers the kind and
// the scope.
type Warning struct {
	Kind WarningKind
	// Scope is the part of the window the warning came from when it was
	// lifted into a larger one: "rep 2" (a rung's repetition), "shard 1"
	// (a merged result's shard), "shard 1: rep 2"; empty for the window's
	// own.
	Scope string
	Text  string
}

// Warn is a warning of kind k, its text formatted.
func Warn(k WarningKind, format string, args ...any) Warning {
	return Warning{Kind: k, Text: fmt.Sprintf(format, args...)}
}

// Note is a warning of no particular kind, its text as given.
func Note(text string) Warning { return Warning{Text: text} }

// Notef is a warning of no particular kind, its text formatted.
func Notef(format string, args ...any) Warning { return Warning{Text: fmt.Sprintf(format, args...)} }

// In is w lifted into a larger window from the part named scope ("rep 2",
// "shard 1").
func (w Warning) In(scope string) Warning {
	if w.Scope != "" {
		scope += ": " + w.Scope
	}
	w.Scope = scope
	return w
}

// String is the warning's text as the result, the log and the reports
// show it.
func (w Warning) String() string {
	s := labels[WarningOther]
	if int(w.Kind) < len(labels) {
		s = labels[w.Kind]
	}
	s += w.Text
	if w.Scope != "" {
		s = w.Scope + ": " + s
	}
	return s
}

// scopeRE is one scope a warning's text may begin with.
var scopeRE = regexp.MustCompile(`^(?:shard|rep) [0-9]+: `)

// ParseWarning reads a warning's String: its scopes, outermost first,
// then its kind's label.
func ParseWarning(s string) Warning {
	var w Warning
	var scopes []string
	for m := scopeRE.FindString(s); m != ""; m = scopeRE.FindString(s) {
		scopes = append(scopes, strings.TrimSuffix(m, ": "))
		s = s[len(m):]
	}
	w.Scope = strings.Join(scopes, ": ")
	for k, label := range labels {
		if rest, ok := strings.CutPrefix(s, label); ok && label != "" {
			w.Kind, s = WarningKind(k), rest
			break
		}
	}
	w.Text = s
	return w
}

// MarshalJSON writes the warning as its text.
func (w Warning) MarshalJSON() ([]byte, error) { return json.Marshal(w.String()) }

// UnmarshalJSON reads a warning's text.
func (w *Warning) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("warning: %w", err)
	}
	*w = ParseWarning(s)
	return nil
}

// Warnings is a window's warnings, in the order they were raised.
type Warnings []Warning

// Texts is each warning's String.
func (ws Warnings) Texts() []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

// Has says whether the window itself (not one of its parts) has a warning
// of kind k.
func (ws Warnings) Has(k WarningKind) bool {
	return slices.ContainsFunc(ws, func(w Warning) bool { return w.Kind == k && w.Scope == "" })
}

// Without is ws less its warnings of kind k.
func (ws Warnings) Without(k WarningKind) Warnings {
	return slices.DeleteFunc(slices.Clone(ws), func(w Warning) bool { return w.Kind == k })
}

// In is every warning of ws lifted from the part named scope.
func (ws Warnings) In(scope string) Warnings {
	out := make(Warnings, len(ws))
	for i, w := range ws {
		out[i] = w.In(scope)
	}
	return out
}

// Notes is a warning of no particular kind for each text.
func Notes(texts ...string) Warnings {
	out := make(Warnings, len(texts))
	for i, t := range texts {
		out[i] = Note(t)
	}
	return out
}
