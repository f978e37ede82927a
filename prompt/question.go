package prompt

import (
	"regexp"
	"strings"
)

// questionTag finds <question>…</question>, in any case, across lines.
var questionTag = regexp.MustCompile(`(?is)<question>(.*?)</question>`)

// FindQuestion returns the question an agent's final message asks with
// <question>…</question> (the last one, if several), or "". A question
// whose whole tag is a copy of text in prompt (the instructions' own
// words) is none.
func FindQuestion(finalMessage, prompt string) string {
	ms := questionTag.FindAllStringSubmatch(finalMessage, -1)
	for i := len(ms) - 1; i >= 0; i-- {
		q := strings.TrimSpace(ms[i][1])
		if q == "" || strings.Contains(prompt, ms[i][0]) {
			continue
		}
		return q
	}
	return ""
}
