package ghactions

import (
	"fmt"
	"strings"

	"github.com/architect-dev/architect/runlog"
)

// testsCell marks an iteration that removed tests of the run's start, in
// the summary's table.
func testsCell(it runlog.Iteration) string {
	t := it.TestsRemoved
	if t == nil || t.Count == 0 {
		return ""
	}
	if t.Failed {
		return fmt.Sprintf(" · 🧪 %d test%s removed (fails)", t.Count, plural(t.Count))
	}
	return fmt.Sprintf(" · 🧪 %d test%s removed", t.Count, plural(t.Count))
}

// testsSection lists what the run's last iteration left of its tests,
// when it left less than there was at the start.
func testsSection(r *runlog.Result) string {
	t := r.TestsRemoved
	if t == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Tests removed since the start\n\n")
	switch {
	case t.Count == 0:
		b.WriteString("Test files were renamed or moved; their tests are all still there.\n\n")
	case t.Failed:
		fmt.Fprintf(&b, "**%d test%s** that were there at the start are gone (`tests: keep`: the iteration failed).\n\n", t.Count, plural(t.Count))
	default:
		fmt.Fprintf(&b, "**%d test%s** that were there at the start are gone (`tests: warn`: recorded only).\n\n", t.Count, plural(t.Count))
	}
	item := func(what, s string) { fmt.Fprintf(&b, "- %s `%s`\n", what, strings.ReplaceAll(cell(s), "`", "'")) }
	for _, f := range t.Files {
		item("file gone:", f)
	}
	for _, s := range t.Tests {
		item("test gone:", s)
	}
	for _, s := range t.NotRun {
		item("no longer run:", s)
	}
	if n := len(t.Tests) + len(t.NotRun); n < t.Count {
		fmt.Fprintf(&b, "- and %d more\n", t.Count-n)
	}
	b.WriteString("\n")
	return b.String()
}
