package checks

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// How the judge follows make and just to the recipes, included files and
// scripts that define a check.

// make follows `make [-C dir] [-f file] [target...]`.
func (f *finder) make(args []string, cwd string, depth int) {
	cwd, file, targets := makeArgs(args, cwd)
	if file == "" {
		file = makefileIn(cwd)
	}
	why := "defines make target " + strings.Join(targets, ", ")
	var parts []string
	for _, t := range targets {
		parts = append(parts, makeTarget+t)
	}
	if len(targets) == 0 {
		why = "defines make's default target" // the first rule: the whole file decides which
	}
	abs := f.add(cwd, file, why, parts...)
	if depth >= maxDepth {
		return
	}
	text, err := readHead(abs)
	if err != nil {
		return
	}
	for _, inc := range makeIncludes(text) {
		f.add(cwd, inc, "included by "+file)
	}
	for _, body := range makeRecipes(text, targets) {
		f.command(body, cwd, depth+1)
	}
}

// makeArgs reads make's arguments: the folder it works in (-C), the
// makefile it was given (-f, "" when none) and the targets.
func makeArgs(args []string, cwd string) (dir, file string, targets []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-C" || a == "--directory") && i+1 < len(args):
			cwd = resolve(cwd, args[i+1])
			i++
		case strings.HasPrefix(a, "--directory="):
			cwd = resolve(cwd, strings.TrimPrefix(a, "--directory="))
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			cwd = resolve(cwd, a[2:])
		case (a == "-f" || a == "--file" || a == "--makefile") && i+1 < len(args):
			file = args[i+1]
			i++
		case makeValueFlag(a) && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			i++
		case strings.HasPrefix(a, "-"), strings.Contains(a, "="):
		default:
			targets = append(targets, a)
		}
	}
	return cwd, file, targets
}

// makeValueFlag reports whether a is one of make's options that take a
// value in the next argument (-j 4, -I dir).
func makeValueFlag(a string) bool {
	return a == "-j" || a == "-l" || a == "-o" || a == "-W" || a == "-I"
}

// makefileIn is the makefile make reads in dir when given none: the first
// of GNUmakefile, makefile and Makefile there is (Makefile when none is).
func makefileIn(dir string) string {
	for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return n
		}
	}
	return "Makefile"
}

// makeIncludes returns the files a Makefile includes (include, -include,
// sinclude), which can set variables (MAKEFLAGS += -i) and rules for every
// target; a name built from a variable or a pattern is left out.
func makeIncludes(text string) []string {
	var out []string
	for _, line := range strings.Split(strings.ReplaceAll(text, "\\\n", " "), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || strings.HasPrefix(line, "\t") {
			continue
		}
		switch fields[0] {
		case "include", "-include", "sinclude":
			for _, name := range fields[1:] {
				if strings.HasPrefix(name, "#") {
					break
				}
				if !strings.ContainsAny(name, "$*?[") {
					out = append(out, name)
				}
			}
		}
	}
	return out
}

var makeRule = regexp.MustCompile(`^([^\t#=:][^=:]*?)\s*::?\s*([^=].*|)$`)

// makeRecipes returns the recipe lines of targets (the first target when
// none is given) and of their prerequisites, as shell text: make's own
// prefixes (@, -, +) are dropped and $$ is $.
func makeRecipes(text string, targets []string) []string {
	text = strings.ReplaceAll(text, "\\\n", " ")
	recipes := map[string][]string{}
	prereqs := map[string][]string{}
	first := ""
	var cur []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "\t") {
			body := strings.TrimLeft(strings.TrimSpace(line), "@-+")
			body = strings.ReplaceAll(body, "$$", "$")
			for _, t := range cur {
				recipes[t] = append(recipes[t], body)
			}
			continue
		}
		m := makeRule.FindStringSubmatch(line)
		if m == nil {
			if strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "#") {
				cur = nil
			}
			continue
		}
		cur = strings.Fields(m[1])
		deps, _, _ := strings.Cut(m[2], ";")
		deps, _, _ = strings.Cut(deps, "#")
		for _, t := range cur {
			prereqs[t] = append(prereqs[t], strings.Fields(deps)...)
			if first == "" && !strings.HasPrefix(t, ".") && !strings.Contains(t, "%") {
				first = t
			}
		}
		if _, body, ok := strings.Cut(m[2], ";"); ok {
			for _, t := range cur {
				recipes[t] = append(recipes[t], strings.TrimSpace(body))
			}
		}
	}
	if len(targets) == 0 && first != "" {
		targets = []string{first}
	}
	var out []string
	for _, t := range targets {
		out = append(out, recipes[t]...)
		for _, p := range prereqs[t] {
			out = append(out, recipes[p]...)
		}
	}
	return out
}

// just follows `just [-f file] [-d dir] [recipe...]`.
func (f *finder) just(args []string, cwd string, depth int) {
	file := ""
	var recipes []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-f" || a == "--justfile") && i+1 < len(args):
			file = args[i+1]
			i++
		case (a == "-d" || a == "--working-directory") && i+1 < len(args):
			cwd = resolve(cwd, args[i+1])
			i++
		case strings.HasPrefix(a, "-"), strings.Contains(a, "="):
		default:
			recipes = append(recipes, a)
		}
	}
	if file == "" {
		file = "justfile"
		for _, n := range []string{"justfile", "Justfile", ".justfile", "JUSTFILE"} {
			if _, err := os.Stat(filepath.Join(cwd, n)); err == nil {
				file = n
				break
			}
		}
	}
	why := "defines just recipe " + strings.Join(recipes, ", ")
	if len(recipes) == 0 {
		why = "defines just's default recipe"
	}
	abs := f.add(cwd, file, why)
	if depth >= maxDepth {
		return
	}
	text, err := readHead(abs)
	if err != nil {
		return
	}
	for _, body := range justRecipes(text, recipes) {
		f.command(body, cwd, depth+1)
	}
}

var justRule = regexp.MustCompile(`^@?([A-Za-z_][A-Za-z0-9_-]*)[^:=]*:([^=].*|)$`)

// justRecipes returns the body lines of recipes (the first when none is
// given) and of the recipes they depend on, as shell text.
func justRecipes(text string, names []string) []string {
	bodies := map[string][]string{}
	deps := map[string][]string{}
	first, cur := "", ""
	for _, line := range strings.Split(text, "\n") {
		if cur != "" && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) {
			bodies[cur] = append(bodies[cur], strings.TrimLeft(strings.TrimSpace(line), "@-"))
			continue
		}
		cur = ""
		if m := justRule.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "set ") && !strings.HasPrefix(line, "alias ") {
			cur = m[1]
			deps[cur] = strings.Fields(m[2])
			if first == "" {
				first = cur
			}
		}
	}
	if len(names) == 0 && first != "" {
		names = []string{first}
	}
	var out []string
	for _, n := range names {
		out = append(out, bodies[n]...)
		for _, d := range deps[n] {
			out = append(out, bodies[d]...)
		}
	}
	return out
}
