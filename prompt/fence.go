package prompt

import "strings"

// fence wraps content in a fenced code block with the given info string
// ("diff", "markdown" or ""). The fence is one backtick longer than the
// longest run of backticks anywhere in content (and at least three), so no
// line of the content can close it early.
func fence(info, content string) string {
	ticks := strings.Repeat("`", max(3, longestRun(content, '`')+1))
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	return ticks + info + "\n" + content + ticks
}

// inline formats s as inline code, with a delimiter longer than any run of
// backticks inside s, padded with spaces when s starts or ends with one.
func inline(s string) string {
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
