package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/searchbench/searchbench/runner"
	"github.com/searchbench/searchbench/runner/report"
)

// checkOut is the up-front check of the --out directory of every command
// that writes results or reports (run, ladder, coordinate, merge, report):
// one that cannot be made or written in is bad input, found before
// anything starts rather than after hours of measuring. The check leaves
// nothing behind. A destination that fails later, mid-run, still gets the
// results: finish writes them to a temporary directory and says where.
func checkOut(dir string, force bool) error {
	if dir == "" {
		return badInput("out: a directory is needed")
	}
	if !force {
		if err := checkOutIsOurs(dir); err != nil {
			return err
		}
	}
	if err := runner.CheckDir(dir, true); err != nil {
		return badInput("out: %v", err)
	}
	return nil
}

// holdOut makes dir and holds it until release is called, just before the
// command starts its work: a second command given the same --out is
// turned away (bad input) instead of mixing its files with this one's.
func holdOut(dir string) (release func(), err error) {
	release, err = runner.LockDir(dir)
	if err != nil {
		return nil, badInput("out: %v", err)
	}
	return release, nil
}

// checkOutFile is checkOut for a command that writes one file (deploy):
// its directory must be one that can be made and written, and the path
// itself not a directory.
func checkOutFile(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return badInput("out: %s is a directory; give the file to write", path)
	}
	return checkOut(filepath.Dir(path), true)
}

// forceUsage is the help of every writing command's --force.
const forceUsage = "write into --out even when it holds files searchbench did not write"

// checkOutIsOurs refuses an --out that exists, is not empty and holds no
// searchbench output (report.HoldsOutput: a searchbench result.json, or a
// report's tables.md): a path given by mistake (a link to /etc, a home
// directory, a source tree) would get result.json, the report and its
// charts among files that are not searchbench's, overwriting any of the
// same names. A link is followed: it is where the files would go. A
// directory that is not there yet, empty, or holds an earlier run's or
// report's files is fine; --force writes anyway.
func checkOutIsOurs(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // not there yet, or not a directory: CheckDir says
	}
	var names []string
	for _, e := range entries {
		if e.Name() != runner.LockFile { // a lock a crashed run left
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 || report.HoldsOutput(dir) {
		return nil
	}
	where := dir
	if target, err := filepath.EvalSymlinks(dir); err == nil && target != filepath.Clean(dir) {
		where = fmt.Sprintf("%s (a link to %s)", dir, target)
	}
	shown := names[:min(len(names), 3)]
	more := ""
	if len(names) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	return badInput("out: %s holds files searchbench did not write (%s%s) and no searchbench result; give a new or empty directory, or --force to write there anyway",
		where, strings.Join(shown, ", "), more)
}
