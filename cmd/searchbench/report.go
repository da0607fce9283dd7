package main

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/searchbench/searchbench/runner/report"
)

func newReportCmd() *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "report <result.json>...",
		Short: "Render the tables, CSV, charts and HTML report from result files alone; several are merged into one report",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return badInput("report: give one or more result files (result.json)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOut(out, force); err != nil {
				return err
			}
			inputs, err := loadResults(args)
			if err != nil {
				return err
			}
			release, err := holdOut(out)
			if err != nil {
				return err
			}
			defer release()
			return writeReport(cmd.OutOrStdout(), newLogger(cmd.ErrOrStderr()), out, report.New(inputs...))
		},
	}
	cmd.Flags().StringVar(&out, "out", "report", "directory for "+outputsText)
	cmd.Flags().BoolVar(&force, "force", false, forceUsage)
	return cmd
}

// outputsText names what writeReport puts in a directory.
const outputsText = report.MarkdownFile + ", " + report.CSVFile + ", " + report.ChartDir + "/ (PNG and SVG) and " + report.HTMLFile

// loadResults reads result files; any that cannot be read is bad input.
func loadResults(paths []string) ([]report.Input, error) {
	var inputs []report.Input
	for _, p := range paths {
		in, err := report.Load(p)
		if err != nil {
			return nil, usageError{err}
		}
		inputs = append(inputs, in)
	}
	return inputs, nil
}

// writeReport writes every output of the report to dir and prints its
// tables.
func writeReport(stdout io.Writer, log *logger, dir string, rep *report.Report) error {
	written, err := rep.Write(dir)
	if err != nil {
		return err
	}
	if err := rep.Markdown(stdout); err != nil {
		return err
	}
	var files []string
	charts := 0
	for _, p := range written {
		if filepath.Base(filepath.Dir(p)) == report.ChartDir {
			charts++
			continue
		}
		files = append(files, filepath.Base(p))
	}
	log.printf("wrote %s in %s, and %d chart files in %s", strings.Join(files, ", "), dir, charts, filepath.Join(dir, report.ChartDir))
	return nil
}
