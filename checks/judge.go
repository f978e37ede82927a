package checks

import (
	"encoding/json"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A check's verdict is decided by more than its command: the script the
// command runs, the manifest that defines the named script or target, the
// configuration of the linter or test runner it starts. An agent that
// rewrites one of those (check.sh to `exit 0`, the `test` script of
// package.json, ruff.toml's rules) gets a passing check without fixing
// anything. FindJudge names those files, from the command's text alone:
// the command is parsed (mvdan.cc/sh), never run, and the files it names
// are read only to follow a script, a Makefile target, a justfile recipe
// or an npm script one level down.
//
// What is followed:
//   - the words of every simple command, with `cd DIR` changing the folder
//     the following ones run in, assignments before the command ignored,
//     wrappers (env, exec, nice, timeout, uv run, poetry run, npx, ...)
//     looked through, and `sh -c '…'`/`bash -c '…'` parsed in turn;
//   - a script named as the program (`./scripts/test.sh`) or given to an
//     interpreter (`sh check.sh`, `python3 tests/run.py`, `node t.js`);
//   - npm, pnpm, yarn and bun scripts (package.json, with --prefix, -C,
//     --dir and --cwd), make targets (Makefile, with -C and -f) and just
//     recipes (justfile), whose commands are followed in turn;
//   - the configuration files of test runners, linters and type checkers
//     (pytest's pyproject.toml, setup.cfg, pytest.ini, tox.ini and
//     conftest.py; Cargo.toml; .golangci.*, ruff.toml, .eslintrc*,
//     eslint.config.*, tsconfig*.json, mypy.ini, ...), looked for in the
//     folder the tool runs in and at the workspace's top, and any file
//     given with --config and its kind.
//
// Following stops one level down: the commands of a script, target,
// recipe or npm script the check names are read (so the configuration of
// the tools they start, and the scripts they name, count), but a script
// named there is not read in turn. A configuration file that is absent
// counts too: an agent that creates ruff.toml or conftest.py changes how
// the check is judged as surely as one that edits it.

// JudgeFile is one file that decides a check's verdict.
type JudgeFile struct {
	// Path is slash-separated and relative to the workspace; absolute
	// when the file is outside it (Outside).
	Path string `json:"path"`
	// Why says what the file is to the check: "the script it runs",
	// "defines npm script test", "ruff's configuration".
	Why    string `json:"why"`
	Exists bool   `json:"exists"`
	// Parts, when set, are the only parts of the file that define the
	// check (see JudgeView): package.json's scripts.test, pyproject.toml's
	// tool.ruff. A change elsewhere (a dependency added) is not one to the
	// judge. Unset: the whole file.
	Parts []string `json:"parts,omitempty"`
	// Outside: the file is outside the workspace. It is listed, but not
	// protected: the agent works in the workspace.
	Outside bool `json:"outside,omitempty"`
}

// Judge is what defines one check: its command and the files that decide
// its verdict.
type Judge struct {
	Check string      `json:"check"`
	Files []JudgeFile `json:"files"`
}

// Present is the files of j that exist, the ones worth listing to people
// (the absent candidates are guarded all the same).
func (j Judge) Present() []JudgeFile {
	var out []JudgeFile
	for _, f := range j.Files {
		if f.Exists {
			out = append(out, f)
		}
	}
	return out
}

// FindJudges finds the judge of each check run in dir; extra are more
// paths (relative to dir) that define every check (--judge-file).
func FindJudges(dir string, commands, extra []string) []Judge {
	out := make([]Judge, len(commands))
	lists := map[string][]string{}
	for i, c := range commands {
		out[i] = Judge{Check: c}
		f := out[i].finder(dir)
		f.lists = lists
		f.command(c, f.root, 0)
		for _, e := range extra {
			f.add(f.root, e, "named by --judge-file")
		}
		out[i].Files = f.files
	}
	return out
}

func (j Judge) finder(dir string) *finder {
	root, err := filepath.Abs(dir)
	if err != nil {
		root = filepath.Clean(dir)
	}
	f := &finder{root: root, seen: map[string]int{}, lists: map[string][]string{}}
	for i, x := range j.Files {
		f.seen[x.Path] = i
	}
	f.files = slices.Clone(j.Files)
	return f
}

// maxDepth is how far the finder follows: the check's command (0), then
// the script, target, recipe or npm script it names (1).
const maxDepth = 1

// maxRead bounds a file read to follow it (a script, a Makefile).
const maxRead = 1 << 20

type finder struct {
	root  string // the workspace, absolute
	files []JudgeFile
	seen  map[string]int      // path → its index in files
	lists map[string][]string // folder → its names, read once (for patterns)
}

// list is the names in folder dir, read once per FindJudges.
func (f *finder) list(dir string) []string {
	if names, ok := f.lists[dir]; ok {
		return names
	}
	d, err := os.Open(dir)
	var names []string
	if err == nil {
		names, _ = d.Readdirnames(-1)
		d.Close()
	}
	f.lists[dir] = names
	return names
}

// add records the file name (relative to cwd, or absolute) with why, once;
// parts, when given, are the only parts of it that define the check (a
// file named whole by one command stays whole). It returns the file's
// absolute path.
func (f *finder) add(cwd, name, why string, parts ...string) string {
	abs := name
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, name)
	}
	abs = filepath.Clean(abs)
	jf := JudgeFile{Why: why}
	rel, err := filepath.Rel(f.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		jf.Path, jf.Outside = filepath.ToSlash(abs), true
	} else {
		jf.Path = filepath.ToSlash(rel)
	}
	if jf.Path == "." {
		return abs
	}
	if i, ok := f.seen[jf.Path]; ok {
		switch old := &f.files[i]; {
		case len(parts) == 0:
			old.Parts = nil
		case len(old.Parts) > 0:
			for _, p := range parts {
				if !slices.Contains(old.Parts, p) {
					old.Parts = append(old.Parts, p)
				}
			}
		}
		return abs
	}
	jf.Parts = slices.Clone(parts)
	if fi, err := os.Stat(abs); err == nil {
		if fi.IsDir() {
			return abs // a folder (python3 tests/) is no file to guard
		}
		jf.Exists = true
	}
	f.seen[jf.Path] = len(f.files)
	f.files = append(f.files, jf)
	return abs
}

// configs records a tool's configuration files: each name in the folder
// the tool runs in and, when that is another folder, at the workspace's
// top. A name holding * is a pattern, matched against the folder.
func (f *finder) configs(cwd, tool string, names []string) {
	why := tool + "'s configuration"
	dirs := []string{cwd}
	if cwd != f.root {
		dirs = append(dirs, f.root)
	}
	for _, d := range dirs {
		for _, n := range names {
			if strings.Contains(n, "*") {
				for _, name := range f.list(d) {
					if ok, _ := path.Match(n, name); ok {
						f.add(d, name, why, partsOf(tool, n)...)
					}
				}
				continue
			}
			f.add(d, n, why, partsOf(tool, n)...)
		}
	}
}

// command follows a shell command run in cwd.
func (f *finder) command(script, cwd string, depth int) {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return // sh cannot run it either: the check fails whatever the agent does
	}
	syntax.Walk(file, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		words := make([]string, len(call.Args))
		for i, w := range call.Args {
			words[i] = WordText(w)
		}
		if words[0] == "cd" || words[0] == "pushd" {
			if len(words) > 1 && words[1] != "" && words[1] != "-" {
				cwd = resolve(cwd, words[1])
			}
			return true
		}
		f.call(words, cwd, depth)
		return true
	})
}

// call follows one simple command's words ("" for a word that is not
// plain text).
func (f *finder) call(words []string, cwd string, depth int) {
	words = unwrap(words)
	if len(words) == 0 || words[0] == "" {
		return
	}
	prog, args := words[0], words[1:]
	base := path.Base(prog)
	switch {
	case strings.Contains(prog, "/"):
		// ./scripts/test.sh, or a tool by its path: .venv/bin/pytest
		f.script(cwd, prog, "the script it runs", depth)
		if _, known := toolConfigs[base]; known {
			f.tool(base, args, cwd)
		}
		return
	case shells[base]:
		if c := flagValue(args, "-c"); c != "" {
			f.command(c, cwd, depth)
			return
		}
		if s := firstArg(args); s != "" {
			f.script(cwd, s, "the script it runs", depth)
		}
		return
	case pythonRe.MatchString(base):
		f.python(args, cwd, depth)
		return
	case interpreters[base]:
		if s := firstArg(args); s != "" {
			f.add(cwd, s, "the script it runs")
		}
		return
	case base == "npm" || base == "pnpm" || base == "yarn" || base == "bun":
		f.node(base, args, cwd, depth)
		return
	case base == "make" || base == "gmake":
		f.make(args, cwd, depth)
		return
	case base == "just":
		f.just(args, cwd, depth)
		return
	case base == "cargo":
		f.cargo(args, cwd)
		return
	}
	f.tool(base, args, cwd)
}

// tool records the configuration of a known tool started with args.
func (f *finder) tool(name string, args []string, cwd string) {
	if names, ok := toolConfigs[name]; ok {
		f.configs(cwd, name, names)
	}
	if name == "pytest" || name == "py.test" {
		f.conftests(args, cwd)
	}
	if name == "tsc" || name == "vue-tsc" {
		if p := flagValue(args, "-p", "--project"); p != "" {
			if fi, err := os.Stat(resolve(cwd, p)); err == nil && fi.IsDir() {
				p = filepath.Join(p, "tsconfig.json")
			}
			f.add(cwd, p, name+"'s configuration")
		}
	}
	for _, fl := range configFlags {
		if fl == "-c" && name != "pytest" && name != "golangci-lint" {
			continue
		}
		if p := flagValue(args, fl); p != "" {
			f.add(cwd, p, name+"'s configuration")
		}
	}
}

// testDirs are the folders pytest's tests are usually in, whose
// conftest.py pytest loads as it collects them.
var testDirs = []string{"tests", "test", "testing"}

// conftests records the conftest.py of the folders pytest collects, which
// it loads and which can turn a failure into a pass (a
// pytest_runtest_makereport hook): the folders it is given, and tests/,
// test/ and testing/ where they exist, in the folder it runs in and at the
// workspace's top; absent or not; and those one folder further down that
// exist (tests/unit/conftest.py).
func (f *finder) conftests(args []string, cwd string) {
	var dirs []string
	for _, a := range args {
		a, _, _ = strings.Cut(a, "::")
		if a != "" && !strings.HasPrefix(a, "-") {
			dirs = append(dirs, resolve(cwd, a))
		}
	}
	for _, d := range []string{cwd, f.root} {
		for _, t := range testDirs {
			dirs = append(dirs, filepath.Join(d, t))
		}
	}
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		f.add(d, "conftest.py", "pytest's configuration")
		for _, sub := range f.list(d) {
			if _, err := os.Stat(filepath.Join(d, sub, "conftest.py")); err == nil {
				f.add(filepath.Join(d, sub), "conftest.py", "pytest's configuration")
			}
		}
	}
}

// script records a script file and, above maxDepth, follows its commands
// when it is a shell script.
func (f *finder) script(cwd, name, why string, depth int) {
	abs := f.add(cwd, name, why)
	if depth >= maxDepth {
		return
	}
	text, err := readHead(abs)
	if err != nil || !isShell(name, text) {
		return
	}
	f.command(text, cwd, depth+1)
}

// python follows `python [-m module | script] args`.
func (f *finder) python(args []string, cwd string, depth int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-m" && i+1 < len(args):
			f.call(args[i+1:], cwd, depth)
			return
		case strings.HasPrefix(a, "-m") && len(a) > 2:
			f.call(append([]string{a[2:]}, args[i+1:]...), cwd, depth)
			return
		case a == "-c":
			return
		case a == "-W" || a == "-X":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			f.add(cwd, a, "the script it runs")
			return
		}
	}
}

// pmConfigs are the configuration files of each package manager that
// change how it runs a script (script-shell, ignore-scripts, shell).
var pmConfigs = map[string][]string{
	"npm":  {".npmrc"},
	"pnpm": {".npmrc"},
	"yarn": {".npmrc", ".yarnrc", ".yarnrc.yml"},
	"bun":  {"bunfig.toml", ".npmrc"},
}

// npmBuiltins are the npm commands that run the script of their name.
var npmBuiltins = map[string]string{"test": "test", "t": "test", "tst": "test", "start": "start", "stop": "stop", "restart": "restart"}

// dirFlags are the options that name the folder a package manager works in.
var dirFlags = map[string][]string{"npm": {"--prefix"}, "pnpm": {"-C", "--dir"}, "yarn": {"--cwd"}, "bun": {"--cwd"}}

// node follows npm, pnpm, yarn and bun.
func (f *finder) node(pm string, args []string, cwd string, depth int) {
	cwd, rest := nodeOptions(pm, args, cwd)
	scripts := readScripts(filepath.Join(cwd, "package.json"))
	if len(rest) == 0 {
		return // `yarn` or `pnpm` alone installs
	}
	name := f.nodeScript(pm, rest, scripts, cwd, depth)
	if name == "" {
		return
	}
	f.add(cwd, "package.json", "defines "+pm+" script "+name, "scripts.pre"+name, "scripts."+name, "scripts.post"+name)
	// The package manager's own configuration decides how a script runs:
	// script-shell=/bin/true in .npmrc makes every script pass.
	f.configs(cwd, pm, pmConfigs[pm])
	if depth >= maxDepth {
		return
	}
	for _, s := range []string{"pre" + name, name, "post" + name} {
		if body, ok := scripts[s]; ok {
			f.command(body, cwd, depth+1)
		}
	}
}

// nodeOptions reads a package manager's options up to its command: the
// folder it works in (cwd, changed by --prefix, -C, --cwd…) and the
// command with its arguments (none when there is no command).
func nodeOptions(pm string, args []string, cwd string) (string, []string) {
	dirFlag := dirFlags[pm]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if k, v, ok := strings.Cut(a, "="); ok && slices.Contains(dirFlag, k) {
			cwd = resolve(cwd, v)
			continue
		}
		if slices.Contains(dirFlag, a) && i+1 < len(args) {
			cwd = resolve(cwd, args[i+1])
			i++
			continue
		}
		if (a == "-w" || a == "--workspace" || a == "--filter" || a == "-F") && i+1 < len(args) {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return cwd, args[i:]
	}
	return cwd, nil
}

// npmRun are the spellings of npm's run command (and its aliases).
var npmRun = []string{"run", "run-script", "rum", "urn"}

// nodeScript is the name of the package.json script that a package
// manager's command (rest) runs, "" when it runs none; a command that
// runs something else (exec, a package's binary, bun's test runner) is
// followed here.
func (f *finder) nodeScript(pm string, rest []string, scripts map[string]string, cwd string, depth int) string {
	sub, more := rest[0], rest[1:]
	switch {
	case slices.Contains(npmRun, sub):
		return firstArg(more)
	case pm == "npm" && npmBuiltins[sub] != "":
		return npmBuiltins[sub]
	case pm == "bun" && sub == "test":
		f.configs(cwd, "bun test", []string{"bunfig.toml"})
	case sub == "exec" || sub == "x" || sub == "dlx":
		f.call(more, cwd, depth)
	case pm != "npm" && scripts != nil:
		if _, ok := scripts[sub]; ok {
			return sub
		}
		if pm != "bun" {
			f.call(rest, cwd, depth) // yarn eslint: the package's binary
		}
	case pm == "pnpm" || pm == "yarn":
		if sub == "test" || sub == "start" {
			return sub
		}
	}
	return ""
}

// readScripts is the scripts of a package.json, nil when it has none.
func readScripts(file string) map[string]string {
	data, err := readHead(file)
	if err != nil {
		return nil
	}
	var m struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal([]byte(data), &m) != nil {
		return nil
	}
	return m.Scripts
}

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

// cargo follows `cargo [+toolchain] SUBCOMMAND [--manifest-path P]`.
func (f *finder) cargo(args []string, cwd string) {
	manifest := flagValue(args, "--manifest-path")
	if manifest == "" {
		manifest = "Cargo.toml"
		if cwd != f.root {
			f.add(f.root, "Cargo.toml", "cargo's manifest", cargoParts...)
		}
	}
	f.add(cwd, manifest, "cargo's manifest", cargoParts...)
	f.configs(cwd, "cargo", []string{".cargo/config.toml", ".cargo/config"})
	switch firstArg(args) {
	case "clippy":
		f.configs(cwd, "clippy", []string{"clippy.toml", ".clippy.toml"})
	case "fmt":
		f.configs(cwd, "rustfmt", []string{"rustfmt.toml", ".rustfmt.toml"})
	}
}

// toolConfigs are the configuration files of test runners, linters and
// type checkers, by program name.
var toolConfigs = map[string][]string{
	"pytest":        {"pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg", "conftest.py"},
	"py.test":       {"pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg", "conftest.py"},
	"tox":           {"tox.ini", "pyproject.toml", "setup.cfg"},
	"nox":           {"noxfile.py"},
	"ruff":          {"ruff.toml", ".ruff.toml", "pyproject.toml"},
	"black":         {"pyproject.toml"},
	"isort":         {".isort.cfg", "pyproject.toml", "setup.cfg", "tox.ini"},
	"flake8":        {".flake8", "setup.cfg", "tox.ini"},
	"pylint":        {"pylintrc", ".pylintrc", "pyproject.toml", "setup.cfg"},
	"mypy":          {"mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"},
	"pyright":       {"pyrightconfig.json", "pyproject.toml"},
	"basedpyright":  {"pyrightconfig.json", "pyproject.toml"},
	"golangci-lint": {".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json"},
	"staticcheck":   {"staticcheck.conf"},
	"revive":        {"revive.toml"},
	"eslint": {"eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts", "eslint.config.mts", "eslint.config.cts",
		".eslintrc", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.yaml", ".eslintrc.yml", ".eslintrc.json", ".eslintignore", "package.json"},
	"tsc":        {"tsconfig*.json"},
	"vue-tsc":    {"tsconfig*.json"},
	"jest":       {"jest.config.js", "jest.config.ts", "jest.config.mjs", "jest.config.cjs", "jest.config.json", "package.json"},
	"vitest":     {"vitest.config.ts", "vitest.config.js", "vitest.config.mts", "vitest.config.mjs", "vite.config.ts", "vite.config.js", "vite.config.mts", "vite.config.mjs", "vitest.workspace.ts", "vitest.workspace.js"},
	"mocha":      {".mocharc.js", ".mocharc.cjs", ".mocharc.yaml", ".mocharc.yml", ".mocharc.json", ".mocharc.jsonc", "package.json"},
	"prettier":   {".prettierrc", ".prettierrc.json", ".prettierrc.yaml", ".prettierrc.yml", ".prettierrc.js", ".prettierrc.cjs", ".prettierrc.mjs", ".prettierrc.toml", "prettier.config.js", "prettier.config.cjs", "prettier.config.mjs", ".prettierignore"},
	"biome":      {"biome.json", "biome.jsonc"},
	"playwright": {"playwright.config.ts", "playwright.config.js"},
	"stylelint":  {".stylelintrc", ".stylelintrc.json", ".stylelintrc.yaml", ".stylelintrc.yml", ".stylelintrc.js", "stylelint.config.js", "stylelint.config.mjs"},
	"deno":       {"deno.json", "deno.jsonc"},
	"shellcheck": {".shellcheckrc"},
	"yamllint":   {".yamllint", ".yamllint.yaml", ".yamllint.yml"},
	"hadolint":   {".hadolint.yaml", ".hadolint.yml"},
	"rubocop":    {".rubocop.yml"},
	"rspec":      {".rspec"},
	"phpunit":    {"phpunit.xml", "phpunit.xml.dist"},
	"phpstan":    {"phpstan.neon", "phpstan.neon.dist"},
	"mvn":        {"pom.xml"},
	"mvnw":       {"pom.xml"},
	"gradle":     {"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"},
	"gradlew":    {"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"},
	"swift":      {"Package.swift"},
	"task":       {"Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml"},
}

// configFlags name a configuration file given on a tool's command line.
var configFlags = []string{"--config", "--config-file", "--rcfile", "--settings", "-c"}

// shells run a script file, or the text after -c.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "ash": true}

// interpreters run the script file named first.
var interpreters = map[string]bool{"node": true, "ruby": true, "perl": true, "php": true, "tsx": true, "ts-node": true, "Rscript": true, "lua": true}

var pythonRe = regexp.MustCompile(`^python[0-9.]*$`)

// unwrap drops the programs that start another (env, nice, timeout, uv
// run, npx, ...) with their options, leaving the program they start.
func unwrap(words []string) []string {
	for len(words) > 0 {
		name := path.Base(words[0])
		if sub, ok := runners[name]; ok {
			switch {
			case len(sub) == 0:
				words = skipOptions(words[1:], "")
			case len(words) > 1 && slices.Contains(sub, words[1]):
				words = skipOptions(words[2:], "")
			default:
				return words // uv pip …: nothing it starts is a check's
			}
			continue
		}
		skip, ok := wrapperArgs[name]
		if !ok {
			return words
		}
		words = skipOptions(words[1:], name)
		if skip && len(words) > 0 {
			words = words[1:] // timeout's duration
		}
	}
	return words
}

// runners start a program after a subcommand: `uv run pytest`; those
// whose list is empty start it directly: `npx eslint`.
var runners = map[string][]string{"uv": {"run"}, "poetry": {"run"}, "pipenv": {"run"}, "pdm": {"run"}, "rye": {"run"}, "hatch": {"run"},
	"npx": nil, "bunx": nil, "pnpx": nil, "uvx": nil, "pipx": {"run"}, "direnv": {"exec"}}

// wrapperArgs start the program after their options; true: one more
// argument (a duration) comes first.
var wrapperArgs = map[string]bool{"env": false, "exec": false, "command": false, "nice": false, "nohup": false, "time": false,
	"timeout": true, "xvfb-run": false, "stdbuf": false, "setsid": false, "ionice": false, "chronic": false}

// skipOptions drops leading options (and env's assignments).
func skipOptions(words []string, wrapper string) []string {
	for len(words) > 0 && (strings.HasPrefix(words[0], "-") || wrapper == "env" && strings.Contains(words[0], "=")) {
		if optWithValue[wrapper+" "+words[0]] && len(words) > 1 {
			words = words[1:]
		}
		words = words[1:]
	}
	return words
}

var optWithValue = map[string]bool{"nice -n": true, "timeout -k": true, "timeout -s": true, "env -u": true, "env -C": true, " --with": true, " --from": true, " -p": true}

// flagValue is the value of the first of names in args: "--name value" or
// "--name=value"; "" when absent.
func flagValue(args []string, names ...string) string {
	for i, a := range args {
		for _, n := range names {
			if a == n && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, n+"="); ok && strings.HasPrefix(n, "--") {
				return v
			}
		}
	}
	return ""
}

// firstArg is the first word of args that is not an option.
func firstArg(args []string) string {
	for _, a := range args {
		if a == "--" {
			continue
		}
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// resolve is dir joined to cwd (dir may be absolute).
func resolve(cwd, dir string) string {
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir)
	}
	return filepath.Join(cwd, dir)
}

// readHead reads a file to follow it, at most maxRead bytes.
func readHead(file string) (string, error) {
	fh, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxRead))
	return string(data), err
}

// isShell reports whether a script is shell: named .sh or .bash, or
// starting with a shell's #! line.
func isShell(name, text string) bool {
	switch path.Ext(name) {
	case ".sh", ".bash":
		return true
	}
	first, _, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(first, "#!") {
		return false
	}
	fs := strings.Fields(strings.TrimPrefix(first, "#!"))
	if len(fs) == 0 {
		return false
	}
	prog := path.Base(fs[0])
	if prog == "env" && len(fs) > 1 {
		prog = path.Base(fs[1])
	}
	return shells[prog]
}

// WordText is a word's literal text, "" for one that is not plain text (a
// variable, a substitution).
func WordText(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return ""
				}
				b.WriteString(lit.Value)
			}
		default:
			return ""
		}
	}
	return b.String()
}
