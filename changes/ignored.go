package changes

import (
	"bytes"
	"context"

	"github.com/architect-dev/architect/gitwt"
)

// ignoredDirs lists the folders, relative to the top level, that git
// ignores as a whole (`git ls-files --others --ignored --directory`): no
// file in them is tracked or reaches a snapshot. With paths, only in those
// (relative to the top level). The list is streamed: the ignored files
// listed one by one are not kept.
func ignoredDirs(ctx context.Context, r *gitwt.Repo, paths ...string) (map[string]bool, error) {
	dirs := &dirCollector{dirs: map[string]bool{}}
	args := []string{"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"}
	if len(paths) > 0 {
		args = append(append(args, "--"), gitwt.LiteralSpecs(paths)...)
	}
	err := r.Git(ctx, gitwt.Command{Stdout: dirs}, args...)
	return dirs.dirs, err
}

// dirCollector keeps the NUL-terminated entries that end with a slash.
type dirCollector struct {
	dirs    map[string]bool
	partial []byte
	long    bool   // the entry being read is too long to keep
	last    string // the last folder listed
}

func (d *dirCollector) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, 0)
		if i < 0 {
			d.partial = append(d.partial, p...)
			if len(d.partial) > 4096 { // longer than any path a folder has here
				d.partial, d.long = d.partial[:0], true
			}
			break
		}
		entry := append(d.partial, p[:i]...)
		// git lists a folder whose files are all ignored, though the
		// folder itself is not, then what is in it: a new file there
		// would not be ignored. The entries come in order, so such a
		// folder is followed by something in it.
		if d.last != "" && bytes.HasPrefix(entry, []byte(d.last+"/")) {
			delete(d.dirs, d.last)
			d.last = ""
		}
		if !d.long && len(entry) > 1 && entry[len(entry)-1] == '/' && len(d.dirs) < maxIgnoredDirs {
			d.last = string(entry[:len(entry)-1])
			d.dirs[d.last] = true
		}
		d.partial, d.long, p = d.partial[:0], false, p[i+1:]
	}
	return n, nil
}

// maxIgnoredDirs bounds the list; past it, the rest are watched.
const maxIgnoredDirs = 1 << 16
