// Package protect keeps an agent from editing the files the checks rely
// on (the tests, the checks' configuration): Take records the protected
// files of a workspace before the agent runs, and Restore, after it ran,
// puts back every protected file it changed or deleted and removes the new
// ones, reporting which. The loop then fails the iteration and tells the
// next agent why.
//
// Files are named by glob patterns relative to the workspace (see Match).
// The contents are kept in memory, bounded by MaxBytes.
//
// Match is path.Match per segment plus "**" (not doublestar, whose larger
// syntax would change what a protect list covers; TestMatch pins it).
package protect

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MaxBytes bounds the protected files' total size: they are held in memory.
const MaxBytes = 64 << 20

// Snapshot is the state of a workspace's protected files at one moment.
type Snapshot struct {
	dir      string
	patterns []string
	skip     []string
	files    map[string]entry // by slash path relative to dir
	// listed: the snapshot names its files (TakeFiles) instead of
	// matching patterns; nil for Take's.
	listed []string
	// views: for a listed file, the part of its contents compared (see
	// View); the whole file otherwise.
	views map[string]func([]byte) []byte
}

type entry struct {
	mode fs.FileMode
	data []byte // a regular file's contents, or a symlink's target
}

// Take records the files under dir that match any of patterns. skip names
// top-level folders never looked into (".git", ".architect", worktrees).
func Take(dir string, patterns, skip []string) (*Snapshot, error) {
	s := &Snapshot{dir: dir, patterns: patterns, skip: skip, files: map[string]entry{}}
	total := 0
	err := s.walk(func(rel, abs string, d fs.DirEntry) error {
		e, err := read(abs, d)
		if err != nil {
			return err
		}
		if total += len(e.data); total > MaxBytes {
			return fmt.Errorf("the protected files exceed %d MB: protect fewer files", MaxBytes>>20)
		}
		s.files[rel] = e
		return nil
	})
	return s, err
}

// Restore compares the workspace with the snapshot and undoes every change
// to a protected file: changed or deleted files are written back, new ones
// removed. It returns the paths it restored or removed, sorted.
func (s *Snapshot) Restore() ([]string, error) {
	if s.listed != nil {
		return s.restoreListed()
	}
	var changed []string
	var errs []error
	seen := map[string]bool{}
	err := s.walk(func(rel, abs string, d fs.DirEntry) error {
		seen[rel] = true
		old, had := s.files[rel]
		if !had {
			changed = append(changed, rel)
			errs = append(errs, os.RemoveAll(abs))
			return nil
		}
		cur, err := read(abs, d)
		if err == nil && cur.mode == old.mode && bytes.Equal(cur.data, old.data) {
			return nil
		}
		changed = append(changed, rel)
		errs = append(errs, write(abs, old))
		return nil
	})
	if err != nil {
		return changed, err
	}
	for rel, old := range s.files {
		if !seen[rel] {
			changed = append(changed, rel)
			errs = append(errs, write(filepath.Join(s.dir, filepath.FromSlash(rel)), old))
		}
	}
	slices.Sort(changed)
	return changed, errors.Join(errs...)
}

// Files lists the regular files the snapshot recorded as present, as
// absolute paths, sorted: the ones that can be made read-only while an
// agent runs (a symlink, or a file absent when recorded, cannot).
func (s *Snapshot) Files() []string {
	if s == nil {
		return nil
	}
	var out []string
	for rel, e := range s.files {
		if e.mode.IsRegular() {
			out = append(out, filepath.Join(s.dir, filepath.FromSlash(rel)))
		}
	}
	slices.Sort(out)
	return out
}

// walk calls fn for every non-directory under s.dir that matches a pattern.
// A directory that replaced a protected file is reported too.
func (s *Snapshot) walk(fn func(rel, abs string, d fs.DirEntry) error) error {
	return filepath.WalkDir(s.dir, func(abs string, d fs.DirEntry, err error) error {
		if err != nil {
			if abs == s.dir {
				return err
			}
			return nil // vanished or unreadable: nothing to protect there
		}
		rel, _ := filepath.Rel(s.dir, abs)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			if !strings.Contains(rel, "/") && slices.Contains(s.skip, rel) {
				return filepath.SkipDir
			}
			if _, was := s.files[rel]; was {
				if err := fn(rel, abs, d); err != nil {
					return err
				}
				return filepath.SkipDir
			}
			return nil
		}
		if s.matches(rel) {
			return fn(rel, abs, d)
		}
		return nil
	})
}

func (s *Snapshot) matches(rel string) bool {
	for _, p := range s.patterns {
		if Match(p, rel) {
			return true
		}
	}
	return false
}

func read(abs string, d fs.DirEntry) (entry, error) {
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		return entry{mode: fs.ModeSymlink, data: []byte(target)}, err
	case d.IsDir():
		return entry{mode: fs.ModeDir}, nil
	}
	fi, err := d.Info()
	if err != nil {
		return entry{}, err
	}
	data, err := os.ReadFile(abs)
	return entry{mode: fi.Mode(), data: data}, err
}

func write(abs string, e entry) error {
	if err := os.RemoveAll(abs); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	if e.mode&fs.ModeSymlink != 0 {
		return os.Symlink(string(e.data), abs)
	}
	if err := os.WriteFile(abs, e.data, e.mode.Perm()); err != nil {
		return err
	}
	return os.Chmod(abs, e.mode.Perm())
}
