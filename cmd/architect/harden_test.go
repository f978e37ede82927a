//go:build unix

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/rogpeppe/go-internal/testscript"
)

// archfiles DIR private: every folder under DIR is 0700 and every file
// 0600 or stricter (no access for group or others).
// archfiles DIR lacks REGEX: no file under DIR holds a match of REGEX.
func cmdArchFiles(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || neg {
		ts.Fatalf("usage: archfiles DIR private | archfiles DIR lacks REGEX")
	}
	root := ts.MkAbs(args[0])
	var re *regexp.Regexp
	if args[1] == "lacks" {
		re = regexp.MustCompile(args[2])
	}
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		n++
		switch {
		case re != nil && d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if loc := re.FindIndex(data); loc != nil {
				ts.Fatalf("%s holds %q", p, data[loc[0]:loc[1]])
			}
		case re == nil && fi.Mode().Perm()&0o077 != 0:
			ts.Fatalf("%s is %v: readable by others than its owner", p, fi.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		ts.Fatalf("%v", err)
	}
	ts.Logf("archfiles: %d entries checked", n)
}
