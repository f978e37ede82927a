//go:build unix

package main

import (
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// mkpath DIR PROG...: make DIR a folder of links to the programs named, as
// found on the script's PATH, so that `env PATH=DIR` leaves every other
// program out: a real machine without pytest, without claude.
func cmdMkPath(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: mkpath DIR PROG...")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	for _, name := range args[1:] {
		path, err := lookPathIn(ts.Getenv("PATH"), name)
		if err != nil {
			ts.Fatalf("mkpath: %s is not on PATH", name)
		}
		ts.Check(os.Symlink(path, filepath.Join(dir, name)))
	}
}

// lookPathIn finds the executable name in the folders of path.
func lookPathIn(path, name string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}
