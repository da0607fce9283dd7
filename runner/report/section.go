package report

import (
	"fmt"
	"io"
	"strings"
)

// Section is one titled part of a report: tables, lines of text and the
// warnings about them, in the order they are shown. Markdown and HTML render
// the same sections, so both show the same figures and the same warnings
// beside them.
type Section struct {
	Title string
	Parts []Part
}

// Part is one table, one line of text, or one warning.
type Part struct {
	Table   *Table
	Text    string
	Warning *Warning
}

// Table is a header and rows of cells; the first column is the row label.
type Table struct {
	Head []string
	Rows [][]string
}

// Warning is a caveat on figures: Where names the figures it affects.
type Warning struct {
	Where string
	Text  string
}

func (w Warning) String() string {
	if w.Where == "" {
		return w.Text
	}
	return w.Where + ": " + w.Text
}

func (s *Section) table(head []string, rows [][]string) {
	s.Parts = append(s.Parts, Part{Table: &Table{Head: head, Rows: rows}})
}

func (s *Section) text(format string, args ...any) {
	s.Parts = append(s.Parts, Part{Text: fmt.Sprintf(format, args...)})
}

func (s *Section) warn(where, text string) {
	s.Parts = append(s.Parts, Part{Warning: &Warning{Where: where, Text: text}})
}

// Warnings is every warning of the sections, in order.
func Warnings(sections []Section) []Warning {
	var out []Warning
	for _, s := range sections {
		for _, p := range s.Parts {
			if p.Warning != nil {
				out = append(out, *p.Warning)
			}
		}
	}
	return out
}

// writeSections writes sections as Markdown at the given heading level.
func writeSections(w io.Writer, level int, sections []Section) error {
	var b strings.Builder
	for i, s := range sections {
		if i > 0 {
			b.WriteString("\n")
		}
		if s.Title != "" {
			fmt.Fprintf(&b, "%s %s\n\n", strings.Repeat("#", level), s.Title)
		}
		for j, p := range s.Parts {
			if j > 0 {
				b.WriteString("\n")
			}
			switch {
			case p.Table != nil:
				writeTable(&b, p.Table.Head, p.Table.Rows)
			case p.Warning != nil:
				if p.Warning.Where != "" {
					fmt.Fprintf(&b, "> warning (%s): %s\n", p.Warning.Where, p.Warning.Text)
				} else {
					fmt.Fprintf(&b, "> warning: %s\n", p.Warning.Text)
				}
			default:
				b.WriteString(p.Text + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
