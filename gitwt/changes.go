package gitwt

import (
	"bytes"
	"context"
)

// Changes is Diff against one base, reused while nothing in the working
// tree changed. A diff costs git a look at every file (tens of milliseconds
// on a few thousand files, mostly lstat); a loop asks for one after every
// iteration, and an iteration often changes nothing (a failed agent, a
// plan-only step, a resumed run). Where the tree can be watched (Linux),
// an unchanged tree costs no git process at all.
type Changes struct {
	repo     *Repo
	base     string
	excludes []string
	limit    int
	w        *Watcher // nil: every Diff is computed
	last     *Diff
	gen      uint64
}

// Changes returns a Changes against base with Diff's excludes and limit.
// With watch, the tree is watched, as a best effort: where that is not
// possible, every Diff is computed afresh. Close releases the watch.
func (r *Repo) Changes(ctx context.Context, base string, excludes []string, limit int, watch bool) *Changes {
	c := &Changes{repo: r, base: base, excludes: excludes, limit: limit}
	if !watch {
		return c
	}
	if w, err := r.Watch(ctx, excludes); err == nil {
		c.w = w
	}
	return c
}

// Watching reports whether unchanged trees are detected without git.
func (c *Changes) Watching() bool { return c.w != nil }

// Gen returns the watched tree's generation (see Watcher.Gen), and false
// when the tree is not watched.
func (c *Changes) Gen(ctx context.Context) (uint64, bool) {
	if c.w == nil {
		return 0, false
	}
	return c.w.Gen(ctx), true
}

// Diff returns the working tree's diff against the base, as Repo.Diff.
func (c *Changes) Diff(ctx context.Context) (Diff, error) {
	if c.w == nil {
		return c.repo.Diff(ctx, c.base, c.excludes, c.limit)
	}
	gen := c.w.Gen(ctx)
	if c.last != nil && gen == c.gen {
		return *c.last, nil
	}
	d, err := c.repo.Diff(ctx, c.base, c.excludes, c.limit)
	if err != nil {
		c.last = nil
		return d, err
	}
	c.last, c.gen = &d, gen
	return d, nil
}

// Close stops watching.
func (c *Changes) Close() error {
	if c == nil || c.w == nil {
		return nil
	}
	return c.w.Close()
}

// ignoredDirs lists the folders, relative to the top level, that git
// ignores as a whole (`git ls-files --others --ignored --directory`): no
// file in them is tracked or reaches a snapshot. The list is streamed: the
// ignored files listed one by one are not kept.
func (r *Repo) ignoredDirs(ctx context.Context) (map[string]bool, error) {
	dirs := &dirCollector{dirs: map[string]bool{}}
	err := run(ctx, r.dir, command{stdout: dirs}, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	return dirs.dirs, err
}

// dirCollector keeps the NUL-terminated entries that end with a slash.
type dirCollector struct {
	dirs    map[string]bool
	partial []byte
	long    bool // the entry being read is too long to keep
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
		if !d.long && len(entry) > 1 && entry[len(entry)-1] == '/' && len(d.dirs) < maxIgnoredDirs {
			d.dirs[string(entry[:len(entry)-1])] = true
		}
		d.partial, d.long, p = d.partial[:0], false, p[i+1:]
	}
	return n, nil
}

// maxIgnoredDirs bounds the list; past it, the rest are watched.
const maxIgnoredDirs = 1 << 16
