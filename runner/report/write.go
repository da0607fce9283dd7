package report

import (
	"bytes"
	"fmt"
	"io"
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
// chart as PNG and SVG, and the HTML report. Everything is rendered, and
// every destination checked, before the first file is written, so a report
// that cannot be made leaves none of its files (a half-written report
// would sit beside result.json as if it were that run's). Each file is
// written atomically; charts an earlier report left in dir that this one
// does not draw are removed, so the directory never mixes two runs'
// pictures. It returns the paths written.
func (rep *Report) Write(dir string) ([]string, error) {
	type file struct {
		name string
		data []byte
	}
	var md, csv, page bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		return nil, err
	}
	if err := rep.CSV(&csv); err != nil {
		return nil, err
	}
	charts, err := rep.render()
	if err != nil {
		return nil, err
	}
	if err := rep.html(&page, charts); err != nil {
		return nil, err
	}
	files := []file{{MarkdownFile, md.Bytes()}, {CSVFile, csv.Bytes()}}
	keep := map[string]bool{}
	for _, c := range charts {
		keep[c.Name+".png"], keep[c.Name+".svg"] = true, true
		files = append(files, file{filepath.Join(ChartDir, c.Name+".png"), c.png}, file{filepath.Join(ChartDir, c.Name+".svg"), c.svg})
	}
	// The page last: it shows the charts, which are there once it is.
	files = append(files, file{HTMLFile, page.Bytes()})
	if err := os.MkdirAll(filepath.Join(dir, ChartDir), 0o777); err != nil {
		return nil, fmt.Errorf("write report: %w", err)
	}
	for _, f := range files {
		if fi, err := os.Stat(filepath.Join(dir, f.name)); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("write report: %s is a directory", filepath.Join(dir, f.name))
		}
	}
	var written []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := result.WriteAtomic(path, f.data); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, removeStaleCharts(filepath.Join(dir, ChartDir), keep)
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

// ResultFile is the result a run writes beside its report.
const ResultFile = "result.json"

// HoldsOutput says whether dir holds what searchbench writes: a
// ResultFile that is a searchbench result (of any version), or a
// MarkdownFile whose first line is the report's title (a directory
// `report` wrote). A directory that is neither, and not empty, is
// someone else's, which writing a run's files into would litter.
func HoldsOutput(dir string) bool {
	if result.ProbeFile(filepath.Join(dir, ResultFile)) {
		return true
	}
	f, err := os.Open(filepath.Join(dir, MarkdownFile))
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	return bytes.HasPrefix(head[:n], []byte("# "+title+"\n")) || bytes.HasPrefix(head[:n], []byte("# "+title+":"))
}
