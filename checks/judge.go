package checks

import (
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
// anything. FindJudges names those files, from the command's text alone:
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
