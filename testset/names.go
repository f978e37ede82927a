package testset

import (
	"bytes"
	"strings"
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
	cur := -1 // the test whose body is being read, in out
	lines(data, func(line []byte) {
		rest, ok := bytes.CutPrefix(line, []byte("func "))
		if !ok {
			if len(line) > 0 && line[0] == '}' {
				cur = -1
			}
			// t.Skip() in its body: the test does not run, as if removed.
			if cur >= 0 && (bytes.Contains(line, []byte(".Skip(")) || bytes.Contains(line, []byte(".SkipNow(")) || bytes.Contains(line, []byte(".Skipf("))) &&
				!bytes.HasPrefix(bytes.TrimSpace(line), []byte("//")) && !strings.HasSuffix(out[cur], " [skip]") {
				out[cur] += " [skip]"
			}
			return
		}
		cur = -1
		name := ident(rest)
		if len(rest) <= len(name) || rest[len(name)] != '(' && rest[len(name)] != '[' {
			return
		}
		for _, p := range []string{"Test", "Fuzz", "Example"} {
			if len(name) >= len(p) && name[:len(p)] == p && (len(name) == len(p) || !(name[len(p)] >= 'a' && name[len(p)] <= 'z')) {
				if name != "TestMain" {
					out = append(out, name)
					cur = len(out) - 1
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
	p := &pyScan{classIndent: -1}
	lines(data, p.line)
	if p.module {
		for i := range p.out {
			if !strings.HasSuffix(p.out[i], " [skip]") {
				p.out[i] += " [skip]"
			}
		}
	}
	return p.out
}

// pyScan reads a Python test file line by line.
type pyScan struct {
	out         []string
	class       string // the class whose body is being read, "" outside one
	classIndent int    // its indentation, -1 outside a class
	// skipped: a decorator seen since the last def or class skips what
	// follows; classSkipped, the class's; module, every test of the file
	// (pytestmark = pytest.mark.skip, __test__ = False, pytest.skip(...,
	// allow_module_level=True)).
	skipped, classSkipped, module bool
}

func (p *pyScan) line(line []byte) {
	trimmed := bytes.TrimLeft(line, " \t")
	if len(trimmed) == 0 || trimmed[0] == '#' {
		return
	}
	indent := len(line) - len(trimmed)
	if p.class != "" && indent <= p.classIndent {
		p.class, p.classIndent, p.classSkipped = "", -1, false
	}
	if trimmed[0] == '@' {
		p.skipped = p.skipped || pySkips(trimmed)
		return
	}
	if indent == 0 && pySkipsModule(trimmed) {
		p.module = true
	}
	if rest, ok := bytes.CutPrefix(trimmed, []byte("class ")); ok && p.class == "" {
		p.class, p.classIndent, p.classSkipped, p.skipped = ident(bytes.TrimLeft(rest, " ")), indent, p.skipped, false
		return
	}
	trimmed, _ = bytes.CutPrefix(trimmed, []byte("async "))
	if rest, ok := bytes.CutPrefix(trimmed, []byte("def ")); ok {
		p.def(rest, indent)
	}
}

// def reads a function definition (rest follows "def "): a test when its
// name starts with test, skipped by a decorator of its own or its class's.
func (p *pyScan) def(rest []byte, indent int) {
	inClass := p.class != "" && indent > p.classIndent
	skip := p.skipped || inClass && p.classSkipped
	p.skipped = false
	name := ident(bytes.TrimLeft(rest, " "))
	if len(name) < 4 || name[:4] != "test" {
		return
	}
	if inClass {
		name = p.class + "." + name
	}
	if skip {
		name += " [skip]" // not run: a test made so is one removed
	}
	p.out = append(p.out, name)
}

// pySkipsModule reports whether a top-level line skips every test of the
// file: pytestmark = pytest.mark.skip, __test__ = False, pytest.skip(...,
// allow_module_level=True).
func pySkipsModule(trimmed []byte) bool {
	return bytes.HasPrefix(trimmed, []byte("pytestmark")) && pySkips(trimmed) ||
		bytes.HasPrefix(trimmed, []byte("__test__")) && bytes.Contains(trimmed, []byte("False")) ||
		bytes.Contains(trimmed, []byte("allow_module_level"))
}

// pySkips reports whether a decorator or a pytestmark skips tests:
// pytest.mark.skip, skipif, xfail, unittest.skip, skipIf, skipUnless.
func pySkips(line []byte) bool {
	l := bytes.ToLower(line)
	for _, w := range []string{"mark.skip", "mark.xfail", "unittest.skip", "@skip", "skipif", "skipunless", "pytest.skip"} {
		if bytes.Contains(l, []byte(w)) {
			return true
		}
	}
	return false
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
			mod := ""
			if len(after) > 0 && after[0] == '.' {
				mod = ident(after[1:])
				after = after[1+len(mod):]
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
			name := string(after[1 : 1+end])
			if mod == "skip" || mod == "todo" {
				name += " [" + mod + "]" // not run: a test made so is one removed
			}
			out = append(out, name)
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

// goOS and goArch are the GOOS and GOARCH values a Go file name can end in
// (name_GOOS_test.go, name_GOARCH_test.go), which limit where it builds.
var (
	goOS   = map[string]bool{"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "hurd": true, "illumos": true, "ios": true, "js": true, "linux": true, "nacl": true, "netbsd": true, "openbsd": true, "plan9": true, "solaris": true, "wasip1": true, "windows": true, "zos": true}
	goArch = map[string]bool{"386": true, "amd64": true, "arm": true, "arm64": true, "loong64": true, "mips": true, "mipsle": true, "mips64": true, "mips64le": true, "ppc64": true, "ppc64le": true, "riscv64": true, "s390x": true, "wasm": true}
)

// goExcluded says what may keep go test from building a test file: its
// build constraints (//go:build, // +build, before the package clause),
// its name's GOOS or GOARCH suffix, a name starting with _ or . (which go
// ignores); "" when nothing does.
func goExcluded(base string, data []byte) string {
	var why []string
	if base != "" && (base[0] == '_' || base[0] == '.') {
		why = append(why, "ignored by go: "+base)
	}
	parts := bytes.Split([]byte(strings.TrimSuffix(base, "_test.go")), []byte("_"))
	for i := len(parts) - 1; i >= 1 && i >= len(parts)-2; i-- {
		if p := string(parts[i]); goOS[p] || goArch[p] {
			why = append(why, p)
		}
	}
	done := false
	lines(data, func(line []byte) {
		t := bytes.TrimSpace(line)
		switch {
		case done:
		case bytes.HasPrefix(t, []byte("package ")):
			done = true
		case bytes.HasPrefix(t, []byte("//go:build")) || bytes.HasPrefix(t, []byte("// +build")):
			why = append(why, string(bytes.TrimPrefix(t, []byte("//"))))
		}
	})
	return strings.Join(why, "; ")
}
