package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/searchbench/searchbench/runner/result"
)

// The files Write makes, relative to its directory.
const (
	MarkdownFile = "tables.md"
	CSVFile      = "figures.csv"
	HTMLFile     = "report.html"
	ChartDir     = "charts" // <chart>.png and <chart>.svg
)

// Write renders every output into dir: the Markdown tables, the CSV, each
// chart as PNG and SVG, and the HTML report. Each file is written
// atomically; charts an earlier report left in dir that this one does not
// draw are removed, so the directory never mixes two runs' pictures. It
// returns the paths written.
func (rep *Report) Write(dir string) ([]string, error) {
	var written []string
	put := func(name string, data []byte) error {
		path := filepath.Join(dir, name)
		if err := result.WriteAtomic(path, data); err != nil {
			return err
		}
		written = append(written, path)
		return nil
	}
	var md, csv, page bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		return written, err
	}
	if err := put(MarkdownFile, md.Bytes()); err != nil {
		return written, err
	}
	if err := rep.CSV(&csv); err != nil {
		return written, err
	}
	if err := put(CSVFile, csv.Bytes()); err != nil {
		return written, err
	}
	charts, err := rep.render()
	if err != nil {
		return written, err
	}
	keep := map[string]bool{}
	for _, c := range charts {
		for _, f := range []struct {
			ext  string
			data []byte
		}{{".png", c.png}, {".svg", c.svg}} {
			keep[c.Name+f.ext] = true
			if err := put(filepath.Join(ChartDir, c.Name+f.ext), f.data); err != nil {
				return written, err
			}
		}
	}
	if err := removeStaleCharts(filepath.Join(dir, ChartDir), keep); err != nil {
		return written, err
	}
	if err := rep.html(&page, charts); err != nil {
		return written, err
	}
	return written, put(HTMLFile, page.Bytes())
}

// removeStaleCharts removes the chart files (by the names Charts gives)
// that are not in keep.
func removeStaleCharts(dir string, keep map[string]bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // nothing there
	}
	for _, e := range entries {
		n := e.Name()
		ext := filepath.Ext(n)
		ours := strings.HasPrefix(n, "latency-") || strings.HasPrefix(n, "ladder-") || strings.HasPrefix(n, "overtime-") || strings.TrimSuffix(n, ext) == "rps"
		if e.Type().IsRegular() && ours && (ext == ".png" || ext == ".svg") && !keep[n] {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				return fmt.Errorf("remove stale chart: %w", err)
			}
		}
	}
	return nil
}
