package protect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// TakeFiles records the named files of dir (slash paths relative to it),
// present or absent: an absent file that appears later is a change too,
// undone by removing it. A name that is a folder is not recorded. Where
// start (a snapshot taken earlier, perhaps decoded from disk) holds a
// file, its entry is kept rather than read again: the state to protect is
// the one at start, not the one now.
//
// Unlike Take, no folder is walked: only the named paths are looked at.
func TakeFiles(dir string, files []string, start *Snapshot) (*Snapshot, error) {
	s := &Snapshot{dir: dir, files: map[string]entry{}, listed: []string{}}
	total := 0
	for _, rel := range files {
		if _, dup := s.files[rel]; dup {
			continue
		}
		if start != nil {
			if e, ok := start.files[rel]; ok {
				s.files[rel] = e
				s.listed = append(s.listed, rel)
				total += len(e.data)
				continue
			}
		}
		e, err := readPath(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return s, err
		}
		if e.mode&fs.ModeDir != 0 {
			continue
		}
		if total += len(e.data); total > MaxBytes {
			return s, fmt.Errorf("the files that define the checks exceed %d MB", MaxBytes>>20)
		}
		s.files[rel] = e
		s.listed = append(s.listed, rel)
	}
	slices.Sort(s.listed)
	return s, nil
}

// absent marks a listed file that did not exist when it was recorded.
const absent fs.FileMode = fs.ModeIrregular

// readPath reads the file at abs without following a final symlink; an
// absent file is an entry with the absent mode.
func readPath(abs string) (entry, error) {
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid):
		return entry{mode: absent}, nil
	case err != nil:
		return entry{}, err
	case fi.IsDir():
		return entry{mode: fs.ModeDir}, nil
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		return entry{mode: fs.ModeSymlink, data: []byte(target)}, err
	}
	data, err := os.ReadFile(abs)
	return entry{mode: fi.Mode(), data: data}, err
}

// View makes a listed file compare through view: a version of it differs
// from the recorded one when view returns other bytes for it (it is
// present in both, a regular file in both), not when any byte differs.
// Restore still puts back the whole file.
func (s *Snapshot) View(rel string, view func([]byte) []byte) {
	if s.views == nil {
		s.views = map[string]func([]byte) []byte{}
	}
	s.views[rel] = view
}

// Recorded is a listed file's contents as the snapshot holds them (the
// version Restore would put back); false when it was absent or is not a
// regular file.
func (s *Snapshot) Recorded(rel string) ([]byte, bool) {
	e, ok := s.files[rel]
	if !ok || !e.mode.IsRegular() {
		return nil, false
	}
	return e.data, true
}

// Changed lists the listed files (TakeFiles) that differ from the
// snapshot, sorted, and changes no file. A file with a view whose bytes
// changed but whose view did not (a dependency added to package.json) is
// not changed, and its new version becomes the one Restore puts back: the
// work done around the guarded parts is not lost when they are restored
// later.
func (s *Snapshot) Changed() []string {
	var out []string
	for _, rel := range s.listed {
		cur, err := readPath(filepath.Join(s.dir, filepath.FromSlash(rel)))
		old := s.files[rel]
		switch {
		case err != nil || !s.same(rel, cur, old):
			out = append(out, rel)
		case s.views[rel] != nil && !same(cur, old):
			s.files[rel] = cur
		}
	}
	return out
}

// same reports whether cur is old, through the file's view if it has one.
func (s *Snapshot) same(rel string, cur, old entry) bool {
	view := s.views[rel]
	if view == nil || !cur.mode.IsRegular() || !old.mode.IsRegular() {
		return same(cur, old)
	}
	return bytes.Equal(view(cur.data), view(old.data))
}

// restoreListed puts back the listed files that changed: a changed or
// deleted one is written again, one that appeared is removed (unless it is
// a folder: that is reported, and left where it is).
func (s *Snapshot) restoreListed() ([]string, error) {
	changed := s.Changed()
	var errs []error
	for _, rel := range changed {
		abs := filepath.Join(s.dir, filepath.FromSlash(rel))
		old := s.files[rel]
		if old.mode == absent {
			if fi, err := os.Lstat(abs); err == nil && !fi.IsDir() {
				errs = append(errs, os.Remove(abs))
			}
			continue
		}
		errs = append(errs, write(abs, old))
	}
	return changed, errors.Join(errs...)
}

func same(a, b entry) bool {
	return a.mode == b.mode && bytes.Equal(a.data, b.data)
}

// savedFile is one listed file as MarshalJSON writes it.
type savedFile struct {
	Path   string      `json:"path"`
	Mode   fs.FileMode `json:"mode"`
	Absent bool        `json:"absent,omitempty"`
	Data   []byte      `json:"data,omitempty"` // base64 in JSON
}

// MarshalJSON writes a snapshot of listed files (TakeFiles), so that a
// resumed run protects the state its first session started from.
func (s *Snapshot) MarshalJSON() ([]byte, error) {
	out := struct {
		Files []savedFile `json:"files"`
	}{Files: []savedFile{}}
	for _, rel := range s.listed {
		e := s.files[rel]
		out.Files = append(out.Files, savedFile{Path: rel, Mode: e.mode, Absent: e.mode == absent, Data: e.data})
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON wrote, as the start to hand to
// TakeFiles.
func (s *Snapshot) UnmarshalJSON(data []byte) error {
	var in struct {
		Files []savedFile `json:"files"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	s.files = map[string]entry{}
	s.listed = []string{}
	for _, f := range in.Files {
		e := entry{mode: f.Mode, data: f.Data}
		if f.Absent {
			e = entry{mode: absent}
		}
		s.files[f.Path] = e
		s.listed = append(s.listed, f.Path)
	}
	return nil
}
