package testset

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strings"
)

// JUnitPath is the report file a check command asks pytest to write
// (--junitxml=PATH, --junit-xml=PATH, or the path as the next word), or ""
// when it names none. The command is read as words split on spaces, with
// quotes around a word removed: enough for the usual command lines.
func JUnitPath(cmd string) string {
	words := strings.Fields(cmd)
	for i, w := range words {
		for _, flag := range []string{"--junitxml", "--junit-xml"} {
			switch {
			case w == flag && i+1 < len(words):
				return unquote(words[i+1])
			case strings.HasPrefix(w, flag+"="):
				return unquote(strings.TrimPrefix(w, flag+"="))
			}
		}
	}
	return ""
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// JUnitRan reads a JUnit XML report (pytest's --junitxml, and most other
// runners') and returns the tests that ran, as CLASSNAME::NAME, sorted: a
// testcase without a skipped element. ok is false when the report cannot
// be read (then it is no witness).
func JUnitRan(data []byte) (names []string, ok bool) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var cur string
	skipped, in := false, false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "testcase":
				var class, name string
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "classname":
						class = a.Value
					case "name":
						name = a.Value
					}
				}
				cur, skipped, in = class+"::"+name, false, true
			case "skipped":
				skipped = true
			}
		case xml.EndElement:
			if t.Name.Local == "testcase" && in {
				if !skipped && len(names) < maxRan {
					names = append(names, cur)
				}
				in = false
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names), true
}
