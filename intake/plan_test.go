package intake

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// summary is what a test compares of an item.
type summary struct {
	Text string
	Line int
	Done bool
}

func summarize(items []Item) []summary {
	out := []summary{}
	for _, it := range items {
		out = append(out, summary{it.Text, it.Line, it.Done})
	}
	return out
}

func TestParse(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []summary
	}{
		{"markers", "# Plan\n- [ ] dash\n* [ ] star\n+ [ ] plus\n1. [ ] numbered\n2) [ ] paren\n", []summary{
			{"dash", 2, false}, {"star", 3, false}, {"plus", 4, false}, {"numbered", 5, false}, {"paren", 6, false}}},
		{"ticked", "- [x] done\n- [X] done too\n- [ ] open\n", []summary{
			{"done", 1, true}, {"done too", 2, true}, {"open", 3, false}}},
		{"sub-items and continuations", "- [ ] parent\n  - [ ] child one\n  - [x] child two\n    more of two\n  a continuation\n- [ ] next\n", []summary{
			{"parent\n- [ ] child one\n- [x] child two\n  more of two\na continuation", 1, false}, {"next", 6, false}}},
		{"blank line inside an item", "- [ ] one\n\n  still one\n\n- [ ] two\n", []summary{
			{"one\n\nstill one", 1, false}, {"two", 5, false}}},
		{"not indented ends it", "- [ ] one\nplain paragraph\n- [ ] two\n", []summary{
			{"one", 1, false}, {"two", 3, false}}},
		{"nested under a plain bullet", "- Phase 1\n  - [ ] a\n  - [ ] b\n- Phase 2\n  - [ ] c\n", []summary{
			{"a", 2, false}, {"b", 3, false}, {"c", 5, false}}},
		{"CRLF", "# P\r\n- [ ] one\r\n  detail\r\n- [x] two\r\n", []summary{
			{"one\ndetail", 2, false}, {"two", 4, true}}},
		{"byte order mark", "\xef\xbb\xbf- [ ] first\n", []summary{{"first", 1, false}}},
		{"fenced code is not a plan", "```md\n- [ ] example\n```\n~~~\n- [ ] also\n~~~\n- [ ] real\n", []summary{{"real", 7, false}}},
		{"fence inside an item", "- [ ] one\n  ```\n  - [ ] code\n  ```\n- [ ] two\n", []summary{
			{"one\n```\n- [ ] code\n```", 1, false}, {"two", 5, false}}},
		{"not checklists", "- plain\n-[ ] no space\n- [] empty box\n- [ ]\n- [y] other\n    - [ ] code block? no: an item\n", []summary{{"code block? no: an item", 6, false}}},
		{"tabs", "- [ ] one\n\t- [ ] child\n- [ ] two\n", []summary{{"one\n- [ ] child", 1, false}, {"two", 3, false}}},
		{"no final newline", "- [ ] last", []summary{{"last", 1, false}}},
		{"empty", "", []summary{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(summarize(Parse([]byte(c.in))), c.want)
		})
	}
}

func TestHeading(t *testing.T) {
	is := is.New(t)
	items := Parse([]byte("- [ ] before\n## Task 1: setup ##\n- [ ] a\n### Task 2\n- [ ] b\n"))
	is.Equal(len(items), 3)
	is.Equal(items[0].Heading, "")
	is.Equal(items[1].Heading, "Task 1: setup")
	is.Equal(items[2].Heading, "Task 2")
	is.True(strings.Contains(TaskText("docs/plan.md", items[1]), `plan docs/plan.md, line 3, under "Task 1: setup"`))
}

// TestIDs: an item's ID stays when the rest of the plan changes around it
// and when its layout changes; it changes when its words do.
func TestIDs(t *testing.T) {
	id := func(plan string, k int) string {
		t.Helper()
		items := Parse([]byte(plan))
		if k >= len(items) {
			t.Fatalf("no item %d in %q", k, plan)
		}
		return items[k].ID
	}
	base := id("- [ ] Add the login form\n  - [ ] with a test\n- [ ] Other\n", 0)
	same := []struct{ name, plan string }{
		{"moved after another", "- [ ] New first\n- [ ] Other\n- [ ] Add the login form\n  - [ ] with a test\n"},
		{"numbered and CRLF", "1. [ ] Add the login form\r\n   2. [ ] with a test\r\n"},
		{"re-indented, spaced", "  * [ ]   Add the login   form\n      - [ ] with a test\n"},
		{"sub-item ticked", "- [ ] Add the login form\n  - [x] with a test\n"},
		{"parent ticked", "- [x] Add the login form\n  - [ ] with a test\n"},
	}
	for _, c := range same {
		t.Run(c.name, func(t *testing.T) {
			k := 0
			if strings.HasPrefix(c.plan, "- [ ] New first") {
				k = 2
			}
			is.New(t).Equal(id(c.plan, k), base)
		})
	}
	changed := []struct{ name, plan string }{
		{"head edited", "- [ ] Add the signup form\n  - [ ] with a test\n"},
		{"sub-item edited", "- [ ] Add the login form\n  - [ ] with two tests\n"},
		{"sub-item added", "- [ ] Add the login form\n  - [ ] with a test\n  - [ ] and docs\n"},
	}
	for _, c := range changed {
		t.Run(c.name, func(t *testing.T) {
			is.New(t).True(id(c.plan, 0) != base)
		})
	}
	is := is.New(t)
	is.True(strings.HasPrefix(base, "add-the-login-form-"))
	is.Equal(len(base), len("add-the-login-form-")+8)
	// The same text twice: told apart by order.
	dup := Parse([]byte("- [ ] same\n- [ ] same\n"))
	is.Equal(dup[1].ID, dup[0].ID+"-2")
	// No letters: "item".
	is.True(strings.HasPrefix(id("- [ ] 🚀 ✨\n", 0), "item-"))
}

func TestSlug(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Add the `login` form!", "add-the-login-form"},
		{"  ---  ", "item"},
		{"Über größe", "ber-gr-e"},
		{strings.Repeat("word ", 20), "word-word-word-word-word-word-word-word"},
		{strings.Repeat("x", 60), strings.Repeat("x", 40)},
	}
	for _, c := range cases {
		is.New(t).Equal(slug(c.in, 40), c.want)
	}
}

func TestTick(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.md")
	orig := "# Plan\r\n- [ ] one\r\n- [x] two\r\n- [ ] three\r\n  - [ ] sub\r\n"
	is.NoErr(os.WriteFile(path, []byte(orig), 0o640))
	p, err := ReadPlan(path)
	is.NoErr(err)
	is.Equal(len(p.Pending()), 2)
	is.NoErr(p.Tick(p.Items[2].ID))
	data, _ := os.ReadFile(path)
	is.Equal(string(data), "# Plan\r\n- [ ] one\r\n- [x] two\r\n- [x] three\r\n  - [ ] sub\r\n") // that box only, CRLF kept
	fi, _ := os.Stat(path)
	is.Equal(fi.Mode().Perm(), os.FileMode(0o640))
	is.NoErr(p.Tick(p.Items[2].ID)) // again: nothing to do
	is.NoErr(p.Tick(p.Items[0].ID))
	data, _ = os.ReadFile(path)
	is.Equal(string(data), "# Plan\r\n- [x] one\r\n- [x] two\r\n- [x] three\r\n  - [ ] sub\r\n")
	is.True(p.Tick("nope") != nil)

	// Someone edits the file: no tick overwrites it.
	edited := "# Plan\r\n- [ ] one\r\n- [ ] new\r\n"
	is.NoErr(os.WriteFile(path, []byte(edited), 0o640))
	p2, err := ReadPlan(path)
	is.NoErr(err)
	is.NoErr(os.WriteFile(path, []byte(edited+"- [ ] newer\r\n"), 0o640))
	is.Equal(p2.Tick(p2.Items[0].ID), ErrChanged)
	data, _ = os.ReadFile(path)
	is.Equal(string(data), edited+"- [ ] newer\r\n")
}

// TestTickThroughSymlink: a plan reached through a symbolic link is
// ticked in its target, and the link stays a link.
func TestTickThroughSymlink(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "real.md")
	is.NoErr(os.WriteFile(target, []byte("- [ ] one\n"), 0o644))
	link := filepath.Join(dir, "plan.md")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	p, err := ReadPlan(link)
	is.NoErr(err)
	is.NoErr(p.Tick(p.Items[0].ID))
	data, _ := os.ReadFile(target)
	is.Equal(string(data), "- [x] one\n")
	fi, err := os.Lstat(link)
	is.NoErr(err)
	is.True(fi.Mode()&os.ModeSymlink != 0)
}

func TestTickBytesRefuses(t *testing.T) {
	is := is.New(t)
	data := []byte("- [x] one\n")
	_, err := TickBytes(data, Item{Box: 3, Line: 1})
	is.True(err != nil) // ticked already
	_, err = TickBytes(data, Item{Box: 0})
	is.True(err != nil)
	_, err = TickBytes(data, Item{Box: 100})
	is.True(err != nil)
}

func TestReadPlanErrors(t *testing.T) {
	is := is.New(t)
	_, err := ReadPlan(filepath.Join(t.TempDir(), "missing.md"))
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "cannot read the plan"))
	p := &Plan{Path: "empty.md"}
	_, err = PlanSpecs(p)
	is.True(strings.Contains(err.Error(), "the plan has no checklist items"))
}
