package prompt

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestFence(t *testing.T) {
	tests := []struct {
		name, info, content, want string
	}{
		{"plain", "", "hello", "```\nhello\n```"},
		{"info and newline kept", "diff", "+a\n", "```diff\n+a\n```"},
		{"content with a fence", "", "```\nx\n```", "````\n```\nx\n```\n````"},
		{"longer runs", "", "a ````` b", "``````\na ````` b\n``````"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got := fence(tt.info, tt.content)
			is.Equal(got, tt.want)
			// The block closes on its last line only.
			lines := splitLines(got)
			is.Equal(fencedBlocks(lines), [][2]int{{0, len(lines) - 1}})
		})
	}
}

func TestInline(t *testing.T) {
	tests := []struct{ in, want string }{
		{"go test ./...", "`go test ./...`"},
		{"echo `date`", "`` echo `date` ``"},
		{"a``b", "```a``b```"},
		{"`x", "`` `x ``"},
	}
	for _, tt := range tests {
		is := is.New(t)
		got := inline(tt.in)
		is.Equal(got, tt.want)
		is.True(strings.Contains(got, tt.in))
	}
}
