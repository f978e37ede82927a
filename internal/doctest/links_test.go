//go:build unix

package doctest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pending are the pages the README and docs/README.md link to that other
// branches of this session write (install and platforms, issues and pull
// requests, annotations and artifacts, rounds of candidates): a link to
// one of them may not resolve until they are merged. Empty this list at
// the merge.
var pending = map[string]bool{}

var (
	linkRE     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpanRE = regexp.MustCompile("`[^`\n]+`")
	headingRE  = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	fenceRE    = regexp.MustCompile("(?ms)^```.*?^```")
	slugDrop   = regexp.MustCompile(`[^\p{L}\p{N}\- _]`)
)

// slug is GitHub's anchor for a heading: lower case, punctuation other
// than '-' and '_' dropped, spaces as '-'.
func slug(h string) string {
	return strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), ""), " ", "-")
}

// anchors are the anchors of the Markdown file at path.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range headingRE.FindAllStringSubmatch(fenceRE.ReplaceAllString(string(data), ""), -1) {
		out[slug(m[1])] = true
	}
	return out
}

// TestDocsLinks: every relative link of README.md and docs/*.md names a
// file of the repository, and an anchor names a heading of its page.
func TestDocsLinks(t *testing.T) {
	root := repoRoot(t)
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		// Code is not Markdown: a link in a fenced block or a code span
		// (`[NAME](URL)` shown as text) is not one.
		text := codeSpanRE.ReplaceAllString(fenceRE.ReplaceAllString(string(data), ""), "")
		for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			n++
			target, anchor, _ := strings.Cut(link, "#")
			path := filepath.Join(root, f)
			if target != "" {
				path = filepath.Join(filepath.Dir(path), target)
			}
			rel, _ := filepath.Rel(root, path)
			if _, err := os.Stat(path); err != nil {
				if !pending[filepath.ToSlash(rel)] {
					t.Errorf("%s: link %s: %s does not exist", f, link, rel)
				}
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !anchors(t, path)[anchor] {
				t.Errorf("%s: link %s: %s has no heading for #%s", f, link, rel, anchor)
			}
		}
	}
	if n < 20 {
		t.Fatalf("found %d relative links: the extraction is broken", n)
	}
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"What does the loop buy me?":                         "what-does-the-loop-buy-me",
		"Several candidates per iteration: `--candidates N`": "several-candidates-per-iteration---candidates-n",
		"Claude Code (`--agent claude`, the default)":        "claude-code---agent-claude-the-default",
		"Getting started: `architect init`":                  "getting-started-architect-init",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}

// TestReadmeShort: the README is the first screen, at most about 200
// lines; the reference goes to docs/.
func TestReadmeShort(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 210 {
		t.Errorf("README.md has %d lines: move the reference into a page of docs/ and link it", n)
	}
}
