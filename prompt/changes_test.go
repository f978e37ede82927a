package prompt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestOutputChanges(t *testing.T) {
	var prev, cur strings.Builder
	for i := range 200 {
		fmt.Fprintf(&prev, "old failure %03d\n", i)
		fmt.Fprintf(&cur, "new failure %03d\n", i)
	}
	tests := []struct {
		name, prev, cur string
		want            []string
	}{
		{"unchanged", "a\nb\n", "a\nb\n", []string{
			"Output unchanged since the previous iteration: no progress on this check.",
		}},
		{"both empty", "", "", []string{"Output unchanged"}},
		{"only changed lines", "keep 1\nfail A\nkeep 2\nfail B\n", "keep 1\nkeep 2\nfail C\n", []string{
			"1 line new, 2 lines gone since the previous iteration:\n\n```diff\n- fail A\n- fail B\n+ fail C\n```",
		}},
		{"last line without newline", "x\ny", "x\ny\nz", []string{"1 line new, 0 lines gone", "```diff\n+ z\n```"}},
		{"crlf", "a\r\nb\r\n", "a\r\nc\r\n", []string{"```diff\n- b\n+ c\n```"}},
		{"gone lines fill what new ones leave", prev.String()[:len("old failure 000\n")*3], "x\n", []string{
			"```diff\n- old failure 000\n- old failure 001\n- old failure 002\n+ x\n```",
		}},
		{"fence safe", "a\n", "```\n", []string{"````diff\n- a\n+ ```\n````"}},
		{"bounded", prev.String(), cur.String(), []string{
			"200 lines new, 200 lines gone since the previous iteration:",
			"```diff\n+ new failure 000\n", // new lines first
			fmt.Sprintf("\n```\n... (%d more changed lines not shown)", 400-changesLimit/len("+ new failure 000\n")),
		}},
		{"long lines are cut", "a\n", strings.Repeat("z", 3000) + "\n", []string{
			"- a\n+ " + strings.Repeat("z", lineLimit) + " ...\n```",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got := outputChanges(tt.prev, tt.cur, changesLimit)
			for _, w := range tt.want {
				is.True(strings.Contains(got, w)) // missing text
			}
			if _, body, ok := strings.Cut(got, "diff\n"); ok {
				body, _, _ = strings.Cut(body, "\n```")
				is.True(len(body) <= changesLimit) // bounded
				for l := range strings.Lines(body) {
					is.True(strings.HasPrefix(l, "+ ") || strings.HasPrefix(l, "- ")) // only changed lines
				}
			}
		})
	}
}

func TestOutputChangesCountsOmitted(t *testing.T) {
	is := is.New(t)
	var cur strings.Builder
	for i := range 100 {
		fmt.Fprintf(&cur, "line %03d: 20 bytes\n", i) // 21 bytes with "+ "
	}
	got := outputChanges("", cur.String(), changesLimit)
	shown := changesLimit / 21
	is.True(strings.HasPrefix(got, "100 lines new, 0 lines gone"))
	is.Equal(strings.Count(got, "\n+ line "), shown)
	is.True(strings.HasSuffix(got, fmt.Sprintf("\n```\n... (%d more changed lines not shown)", 100-shown)))
}
