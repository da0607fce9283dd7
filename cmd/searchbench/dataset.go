package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/searchbench/searchbench/dataset"
	"github.com/searchbench/searchbench/runner/scenario"
)

type corpusFlags struct {
	seed        uint64
	ids         int
	prepopulate float64
	flags       *pflag.FlagSet
}

func (f *corpusFlags) register(cmd *cobra.Command) {
	f.flags = cmd.Flags()
	scenario.RegisterCorpus(f.flags, &f.seed, &f.ids, &f.prepopulate)
}

func (f *corpusFlags) config() dataset.Config {
	return dataset.Config{Seed: f.seed, IDs: f.ids, Prepopulate: f.prepopulate}
}

func (f *corpusFlags) corpus() (*dataset.Corpus, error) {
	c, err := dataset.New(f.config())
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

func newDatasetCmd() *cobra.Command {
	var (
		cf      corpusFlags
		stats   bool
		asJSON  bool
		sample  int
		docs    int
		queries int
	)
	cmd := &cobra.Command{
		Use:   "dataset",
		Short: "Show sample documents and queries, or the corpus's statistics",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sample < 0 || docs < 0 || queries < 1 {
				return badInput("dataset: --sample and --docs must be ≥ 0 and --queries ≥ 1")
			}
			c, err := cf.corpus()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if !stats {
				return printSamples(out, c, sample)
			}
			s := c.Stats(docs, queries)
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					dataset.Stats
					Hash string `json:"hash"`
				}{s, c.Hash()})
			}
			printStats(out, s, c.Hash())
			return nil
		},
	}
	cf.register(cmd)
	cmd.Flags().BoolVar(&stats, "stats", false, "print the corpus's statistics instead of samples")
	cmd.Flags().BoolVar(&asJSON, "json", false, "with --stats: print JSON")
	cmd.Flags().IntVar(&sample, "sample", 3, "documents and queries to print")
	cmd.Flags().IntVar(&docs, "docs", 0, "with --stats: documents to measure (0: every pre-populated one)")
	cmd.Flags().IntVar(&queries, "queries", 1000, "with --stats: queries to measure")
	return cmd
}

func printSamples(w io.Writer, c *dataset.Corpus, n int) error {
	for id := uint32(1); id <= uint32(min(n, c.IDs())); id++ {
		d := c.Document(id, 0)
		fmt.Fprintf(w, "--- document %s (version 0, pre-populated: %v)\nname: %s\ncontent:\n%s\n\n", dataset.DocID(id), c.Prepopulated(id), d.Name, d.Content)
	}
	for i := range uint64(n) {
		fmt.Fprintf(w, "query %d: %s\n", i, c.Query(i))
	}
	return nil
}

func printStats(w io.Writer, s dataset.Stats, hash string) {
	fmt.Fprintf(w, "generator            %s (seed %d)\n", s.Generator, s.Seed)
	fmt.Fprintf(w, "corpus hash          %s\n", hash)
	fmt.Fprintf(w, "IDs                  %d, pre-populated %d (%.2f%%)\n", s.IDs, s.Prepopulated, 100*float64(s.Prepopulated)/float64(s.IDs))
	fmt.Fprintf(w, "documents measured   %d\n", s.Documents)
	fmt.Fprintf(w, "vocabulary           %d words seen of a %d-word list\n", s.Vocabulary, s.VocabularyList)
	fmt.Fprintf(w, "mean document size   %.0f bytes (name + content)\n", s.MeanDocumentBytes)
	fmt.Fprintf(w, "mean name words      %.2f\n", s.MeanNameWords)
	fmt.Fprintf(w, "mean content words   %.2f\n", s.MeanContentWords)
	fmt.Fprintf(w, "mean query words     %.2f (%d queries)\n", s.MeanQueryWords, s.Queries)
	fmt.Fprintf(w, "query matches (OR)   %.2f%% of documents on average\n", 100*s.MeanMatchFraction)
	fmt.Fprintf(w, "query matches (AND)  %.4f%% of documents on average\n", 100*s.MeanAllFraction)
	dist := func(name string, d map[int]int) {
		total := 0
		for _, v := range d {
			total += v
		}
		fmt.Fprintf(w, "%s\n", name)
		for _, k := range dataset.Sorted(d) {
			fmt.Fprintf(w, "  %3d  %6.2f%%\n", k, 100*float64(d[k])/float64(total))
		}
	}
	dist("name words (sentence(10))", s.NameWords)
	dist("query words (sentence(5))", s.QueryWords)
	dist("content sentence words (sentence(6))", s.ContentSentence)
	dist("sentences per paragraph", s.ParagraphSentences)
}
