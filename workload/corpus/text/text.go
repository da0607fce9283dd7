// Package text is Study A's corpus as a workload: documents with a name
// and a content (dataset.Corpus), searched by 5-word free-text queries;
// its known-item checks search five words of a document's name, and its
// freshness probe marks the name. It has no exact answers: a text search's
// ranking is each engine's own. Registered as "text".
package text

import (
	"context"
	"strings"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/engines"
	"github.com/searchbench/searchbench/runner/result"
	"github.com/searchbench/searchbench/workload/corpus"
)

// Name is the corpus's name in the registry and the --corpus flag.
const Name = "text"

func init() {
	corpus.Register(Name, func(cfg corpus.Config) (corpus.Source, error) { return New(cfg.Config) })
}

// Text is Study A's corpus.
type Text struct{ *dataset.Corpus }

// New builds the text corpus for cfg.
func New(cfg dataset.Config) (Text, error) {
	c, err := dataset.New(cfg)
	if err != nil {
		return Text{}, err
	}
	return Text{c}, nil
}

// The index's fields.
const (
	FieldName    = "name"
	FieldContent = "content"
)

// Schema is the mixed workload's index.
func (Text) Schema() engines.Schema {
	return engines.Schema{Name: "searchbench", Fields: []engines.FieldSpec{
		{Name: FieldName, Type: engines.Text},
		{Name: FieldContent, Type: engines.Text},
	}}
}

// Document converts a corpus document for the engines.
func (t Text) Document(id, version uint32) engines.Document {
	d := t.Corpus.Document(id, version)
	return engines.Document{ID: dataset.DocID(d.ID), Fields: []engines.Field{
		{Name: FieldName, Text: d.Name},
		{Name: FieldContent, Text: d.Content},
	}}
}

// Query is a free-text search over every text field.
func (t Text) Query(i uint64) (engines.Query, int) { return engines.Query{Text: t.Corpus.Query(i)}, 0 }

// QueryKinds is the text corpus's one kind.
func (Text) QueryKinds() []string { return []string{"text"} }

// Provenance names the generator, seed and hash.
func (t Text) Provenance(ctx context.Context) (result.Corpus, error) {
	return corpus.WithHash(ctx, t.Identity(), t.HashContext)
}

// Identity is Provenance without the hash, which is a function of it.
func (t Text) Identity() result.Corpus {
	return corpus.Provenance(dataset.Generator, t.Config(), t.PrepopulatedCount())
}

// KnownQuery takes five words of the document's name, in a random order:
// the document holds every one of them in its shortest field, so any
// engine that ranks by the query's words puts it near the top.
func (t Text) KnownQuery(i uint64, id uint32) (string, engines.Query) {
	r := dataset.NewRand(t.Config().Seed, corpus.TagKnownItem, i, uint64(id))
	words := strings.Fields(strings.TrimSuffix(t.Corpus.Document(id, 0).Name, "."))
	for j := len(words) - 1; j > 0; j-- {
		k := r.Intn(j + 1)
		words[j], words[k] = words[k], words[j]
	}
	return "name words", engines.Query{Text: strings.ToLower(strings.Join(words[:min(5, len(words))], " "))}
}

// Mark adds word to the name.
func (Text) Mark(doc *engines.Document, word string) { corpus.MarkField(doc, FieldName, word) }

// MarkQuery searches every text field for word.
func (Text) MarkQuery(word string) engines.Query { return engines.Query{Text: word} }
