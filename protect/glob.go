package protect

import (
	"errors"
	"path"
	"strings"
)

// Match reports whether name, a slash-separated path relative to the
// workspace, matches pattern. Segments match as path.Match does ("*", "?",
// "[a-z]", none of them crossing a "/"); a "**" segment matches any number
// of segments, none included. A pattern without a "/" matches the file's
// name at any depth, as in .gitignore: "*_test.go" is "**/*_test.go". A
// malformed pattern matches nothing (Valid reports it).
func Match(pattern, name string) bool {
	pattern = strings.TrimPrefix(pattern, "./")
	if !strings.Contains(pattern, "/") {
		pattern = "**/" + pattern
	}
	pattern = strings.TrimPrefix(pattern, "/")
	return matchSegs(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 1 && pat[1] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 1 {
				return true
			}
			for i := 0; i < len(name); i++ {
				if matchSegs(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// Valid reports a malformed pattern.
func Valid(pattern string) error {
	if strings.TrimSpace(pattern) == "" {
		return errors.New("empty pattern")
	}
	for _, seg := range strings.Split(strings.TrimPrefix(pattern, "/"), "/") {
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return errors.New("malformed pattern (check its [ ] and \\)")
		}
	}
	return nil
}
