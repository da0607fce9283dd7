package main

import (
	"os"
	"path/filepath"

	"github.com/searchbench/searchbench/runner"
)

// checkOut is the up-front check of the --out directory of every command
// that writes results or reports (run, ladder, coordinate, merge, report):
// one that cannot be made or written in is bad input, found before
// anything starts rather than after hours of measuring. The check leaves
// nothing behind. A destination that fails later, mid-run, still gets the
// results: finish writes them to a temporary directory and says where.
func checkOut(dir string) error {
	if dir == "" {
		return badInput("out: a directory is needed")
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
	return checkOut(filepath.Dir(path))
}
