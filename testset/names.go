package testset

import (
	"bytes"
)

// scanNames picks the test names out of a test file's text, line by line.
func scanNames(l lang, data []byte) []string {
	switch l {
	case golang:
		return goNames(data)
	case python:
		return pyNames(data)
	case js:
		return jsNames(data)
	case rust:
		return rustNames(data)
	}
	return nil
}

// lines calls fn for each line of data, without its line ending.
func lines(data []byte, fn func(line []byte)) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			fn(data)
			return
		}
		fn(bytes.TrimSuffix(data[:i], []byte("\r")))
		data = data[i+1:]
	}
}

// ident returns the identifier at the start of b.
func ident(b []byte) string {
	n := 0
	for n < len(b) && isIdent(b[n]) {
		n++
	}
	return string(b[:n])
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// goNames: top-level func TestX(, FuzzX(, ExampleX( (go test's own rule:
// what follows the prefix does not start with a lower-case letter).
func goNames(data []byte) []string {
	var out []string
	lines(data, func(line []byte) {
		rest, ok := bytes.CutPrefix(line, []byte("func "))
		if !ok {
			return
		}
		name := ident(rest)
		if len(rest) <= len(name) || rest[len(name)] != '(' && rest[len(name)] != '[' {
			return
		}
		for _, p := range []string{"Test", "Fuzz", "Example"} {
			if len(name) >= len(p) && name[:len(p)] == p && (len(name) == len(p) || !(name[len(p)] >= 'a' && name[len(p)] <= 'z')) {
				if name != "TestMain" {
					out = append(out, name)
				}
				return
			}
		}
	})
	return out
}

// pyNames: def test_… (and async def), named Class.test_… inside a class,
// the class told by indentation.
func pyNames(data []byte) []string {
	var out []string
	class, classIndent := "", -1
	lines(data, func(line []byte) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == 0 || trimmed[0] == '#' {
			return
		}
		indent := len(line) - len(trimmed)
		if class != "" && indent <= classIndent {
			class, classIndent = "", -1
		}
		if rest, ok := bytes.CutPrefix(trimmed, []byte("class ")); ok && class == "" {
			class, classIndent = ident(bytes.TrimLeft(rest, " ")), indent
			return
		}
		trimmed, _ = bytes.CutPrefix(trimmed, []byte("async "))
		rest, ok := bytes.CutPrefix(trimmed, []byte("def "))
		if !ok {
			return
		}
		name := ident(bytes.TrimLeft(rest, " "))
		if len(name) < 4 || name[:4] != "test" {
			return
		}
		if class != "" && indent > classIndent {
			name = class + "." + name
		}
		out = append(out, name)
	})
	return out
}

// jsNames: the string names of it(…) and test(…) calls (it.only, test.skip
// and the like too), at any depth: names, not their describe blocks.
func jsNames(data []byte) []string {
	var out []string
	for _, call := range [][]byte{[]byte("it"), []byte("test")} {
		rest := data
		for {
			i := bytes.Index(rest, call)
			if i < 0 {
				break
			}
			before := byte(' ')
			if i > 0 {
				before = rest[i-1]
			}
			after := rest[i+len(call):]
			rest = after
			if isIdent(before) || before == '.' || before == '$' {
				continue
			}
			// it.only( / test.skip( / test.concurrent(
			if len(after) > 0 && after[0] == '.' {
				after = after[1+len(ident(after[1:])):]
			}
			after = bytes.TrimLeft(after, " \t")
			if len(after) < 2 || after[0] != '(' {
				continue
			}
			after = bytes.TrimLeft(after[1:], " \t\r\n")
			if len(after) == 0 || (after[0] != '\'' && after[0] != '"' && after[0] != '`') {
				continue
			}
			q := after[0]
			end := bytes.IndexByte(after[1:], q)
			if end < 0 || bytes.IndexByte(after[1:1+end], '\n') >= 0 {
				continue
			}
			out = append(out, string(after[1:1+end]))
		}
	}
	return out
}

// rustNames: the fn after an attribute line ending in test] (#[test],
// #[tokio::test]), other attributes in between.
func rustNames(data []byte) []string {
	var out []string
	marked := false
	lines(data, func(line []byte) {
		t := bytes.TrimSpace(line)
		switch {
		case bytes.HasPrefix(t, []byte("#[")):
			if bytes.HasSuffix(t, []byte("test]")) {
				marked = true
			}
			return
		case !marked || len(t) == 0 || bytes.HasPrefix(t, []byte("//")):
			return
		}
		marked = false
		for _, p := range []string{"pub ", "async ", "unsafe "} {
			t = bytes.TrimPrefix(t, []byte(p))
		}
		if rest, ok := bytes.CutPrefix(t, []byte("fn ")); ok {
			if name := ident(bytes.TrimLeft(rest, " ")); name != "" {
				out = append(out, name)
			}
		}
	})
	return out
}
