// Package wtsetup makes a new worktree ready to work in: it brings the
// files and folders git ignores (.env, local agent settings,
// node_modules) from the main checkout into the worktree, copied or
// linked as worktree_setup: in ralph.yaml says, never over what is
// already there; it reads the secrets of the copied files for the run's
// masking; and it points the package managers' caches at one folder
// shared by every worktree. The setup command itself runs in the loop,
// supervised as a check (loop/worktreesetup.go).
//
// Every entry is a path or a glob relative to the repository's top-level
// folder. What it names must stay inside the repository once symbolic
// links are followed, in the main checkout and in the worktree: a link
// that leads outside is refused, never followed.
package wtsetup

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/usererr"
)

// Brought is what Bring did, each entry a path relative to the
// repository's top-level folder.
type Brought struct {
	Copied  []string // copied from the main checkout
	Linked  []string // linked to the main checkout's
	Kept    []string // already in the worktree (tracked by git, or a resumed run's): left as they were
	Missing []string // optional entries the main checkout does not have
}

// match is one path an entry names in the main checkout.
type match struct {
	rel  string // slash-separated, from the top
	abs  string // in the main checkout
	link bool   // link rather than copy
}

// Check refuses, as a *usererr.Error naming the entry, what Bring would
// refuse: an entry without "?" that names nothing in the main checkout
// top, or one that leads outside it. It also refuses to bring in a file
// that git neither tracks nor ignores (untracked lists those, from
// paths): in the worktree it would be committed with the agent's work, a
// copied secret with it. It changes nothing.
func Check(top string, w config.WorktreeSetup, untracked func(paths ...string) ([]string, error)) error {
	ms, _, err := matches(top, w)
	if err != nil || len(ms) == 0 {
		return err
	}
	rels := make([]string, len(ms))
	for i, m := range ms {
		rels[i] = m.rel
	}
	open, err := untracked(rels...)
	if err != nil {
		return err
	}
	if len(open) > 0 {
		if len(open) > 5 {
			open = append(open[:5], fmt.Sprintf("and %d more", len(open)-5))
		}
		return &usererr.Error{
			Msg:  "worktree_setup would bring into the worktree files git does not ignore, which the agent's commits would take in: " + strings.Join(open, ", "),
			Hint: "add them to .gitignore (a secret especially), or drop them from worktree_setup",
		}
	}
	return nil
}

// Bring copies and links w's entries from the main checkout top into the
// worktree wt (both top-level folders). An entry already in the worktree
// is kept as it is. It stops at the first problem (an entry missing or
// leading outside the repository, a file that cannot be written), having
// replaced nothing.
func Bring(top, wt string, w config.WorktreeSetup) (Brought, error) {
	ms, missing, err := matches(top, w)
	b := Brought{Missing: missing}
	if err != nil {
		return b, err
	}
	realWT, err := filepath.EvalSymlinks(wt)
	if err != nil {
		return b, err
	}
	for _, m := range ms {
		dst := filepath.Join(wt, filepath.FromSlash(m.rel))
		if _, err := os.Lstat(dst); err == nil {
			b.Kept = append(b.Kept, m.rel)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return b, err
		}
		// A folder of the worktree on the way (tracked, so it came with
		// the checkout) may be a link that leads outside: nothing is
		// written through it.
		if parent, err := filepath.EvalSymlinks(filepath.Dir(dst)); err != nil || !within(realWT, parent) {
			return b, outside(m.rel, "the worktree's folder "+filepath.Dir(m.rel)+" leads outside it")
		}
		if m.link {
			if err := os.Symlink(m.abs, dst); err != nil {
				return b, fmt.Errorf("linking %s: %w", m.rel, err)
			}
			b.Linked = append(b.Linked, m.rel)
			continue
		}
		if err := copyEntry(top, m.abs, dst); err != nil {
			return b, fmt.Errorf("copying %s: %w", m.rel, err)
		}
		b.Copied = append(b.Copied, m.rel)
	}
	return b, nil
}

// matches finds what w's entries name in top: the paths to bring, the
// optional entries that name nothing, or the first problem.
func matches(top string, w config.WorktreeSetup) ([]match, []string, error) {
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		return nil, nil, err
	}
	var out []match
	var missing []string
	seen := map[string]bool{}
	for _, list := range []struct {
		entries []string
		link    bool
	}{{w.Copy, false}, {w.Link, true}} {
		for _, e := range list.entries {
			p := config.ParseSetupEntry(e)
			if msg := config.SetupPathProblem(p.Pattern); msg != "" {
				return nil, nil, &usererr.Error{Msg: "worktree_setup: " + msg, Hint: "name files and folders relative to the repository's top-level folder"}
			}
			found, err := filepath.Glob(filepath.Join(top, filepath.FromSlash(p.Pattern)))
			if err != nil {
				return nil, nil, &usererr.Error{Msg: fmt.Sprintf("worktree_setup: %q: %v", e, err), Hint: "fix the glob"}
			}
			found = slices.DeleteFunc(found, func(f string) bool { return ownFolder(top, f) })
			if len(found) == 0 {
				if p.Optional {
					missing = append(missing, p.Pattern)
					continue
				}
				return nil, nil, &usererr.Error{
					Msg:  fmt.Sprintf("worktree_setup: %s is not in the main checkout %s, so it cannot be brought into the worktree", p.Pattern, top),
					Hint: fmt.Sprintf("create it, or mark it optional with a trailing ? (%q; quote it in a [a, b] list)", p.Pattern+"?"),
				}
			}
			for _, f := range found {
				rel, err := filepath.Rel(top, f)
				if err != nil {
					return nil, nil, err
				}
				rel = filepath.ToSlash(rel)
				if seen[rel] {
					continue
				}
				seen[rel] = true
				resolved, err := filepath.EvalSymlinks(f)
				if err != nil {
					return nil, nil, outside(rel, "it is a link to nothing")
				}
				if !within(realTop, resolved) {
					return nil, nil, outside(rel, "it leads to "+resolved)
				}
				if !list.link {
					if err := linksInside(realTop, resolved); err != nil {
						return nil, nil, err
					}
				}
				out = append(out, match{rel: rel, abs: f, link: list.link})
			}
		}
	}
	return out, missing, nil
}

// linksInside refuses a folder to copy (dir, resolved) that holds a link
// leading outside the repository top, before anything is copied.
func linksInside(top, dir string) error {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return err
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		if resolved, err := filepath.EvalSymlinks(p); err != nil || !within(top, resolved) {
			target, _ := os.Readlink(p)
			r, _ := filepath.Rel(top, p)
			return outside(filepath.ToSlash(r), "a link in it leads to "+target)
		}
		return nil
	})
}

// ownFolder reports whether f is, or is in, git's or architect's own
// folders, which a glob such as .* would otherwise match.
func ownFolder(top, f string) bool {
	rel, err := filepath.Rel(top, f)
	if err != nil {
		return true
	}
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return config.SetupPathProblem(first) != ""
}

func outside(rel, why string) error {
	return &usererr.Error{
		Msg:  fmt.Sprintf("worktree_setup: %s leaves the repository (%s); architect brings into a worktree only what is inside it", rel, why),
		Hint: "list the file itself, or drop the entry (secrets kept elsewhere can reach the run through the environment)",
	}
}

// within reports whether path is dir or inside it (both resolved).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// copyEntry copies src (a file, or a folder and everything in it) to dst,
// which does not exist. A link inside a copied folder is made again as it
// is when it leads inside the repository top, and refused otherwise;
// sockets and devices are skipped.
func copyEntry(top, src, dst string) error {
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		return err
	}
	from, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	fi, err := os.Stat(from)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return copyFile(from, dst, fi.Mode())
	}
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch t := d.Type(); {
		case d.IsDir():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.Mkdir(to, info.Mode().Perm()|0o700)
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			resolved, err := filepath.EvalSymlinks(p)
			if err != nil || !within(realTop, resolved) {
				r, _ := filepath.Rel(realTop, p)
				return outside(filepath.ToSlash(r), "a link in it leads to "+target)
			}
			return os.Symlink(target, to)
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return copyFile(p, to, info.Mode())
		}
		return nil // a socket, a device, a FIFO: nothing to copy
	})
}

// copyFile copies the regular file src to dst, which it creates (never
// over a file there), with src's permissions.
func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode.Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}
