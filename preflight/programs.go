package preflight

import (
	"os/exec"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/architect-dev/architect/checks"
)

// Programs lists the programs that a shell command (a check, or the
// command agent's --agent-cmd, both run with sh -c) starts by name and
// that lookPath cannot find. Only what is sure to be looked up on PATH
// counts:
//
//   - a command named by a plain word: `pytest -q`, `cd web && npm test`
//     (cd is a builtin), `FOO=1 ruff check`, `$(go env GOPATH)/bin/x` is
//     not plain and is left alone;
//   - through env, exec, command, nice, nohup, time and timeout, the
//     program they start as well;
//   - not a path (`./gradlew`, `bin/test`): the check may build it;
//   - not a function the script defines, nor a shell builtin;
//   - nothing after a command that can change PATH (`. venv/bin/activate`,
//     source, eval, export and other declarations, PATH=...), since what
//     follows may be found there;
//   - nothing at all in a script that tests for programs itself (command
//     -v, which, type, hash): it has its own answer for a missing one.
//
// A script the shell parser cannot read is not checked (sh reports it).
func Programs(script string, lookPath func(string) (string, error)) []string {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return nil
	}
	funcs, probes := definitions(f)
	if probes {
		return nil
	}
	w := &programWalk{funcs: funcs, seen: map[string]bool{}, lookPath: lookPath}
	syntax.Walk(f, w.visit)
	return w.missing
}

// definitions returns the functions the script defines, and whether it
// tests for programs itself (command -v, which, type, hash).
func definitions(f *syntax.File) (funcs map[string]bool, probes bool) {
	funcs = map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			if n.Name != nil {
				funcs[n.Name.Value] = true
			}
		case *syntax.CallExpr:
			if probesPrograms(literals(n.Args)) {
				probes = true
			}
		}
		return true
	})
	return funcs, probes
}

// probesPrograms reports whether a command with these words tests whether
// a program exists.
func probesPrograms(words []string) bool {
	if len(words) == 0 {
		return false
	}
	return probeCommands[words[0]] || words[0] == "command" && len(words) > 1 && (words[1] == "-v" || words[1] == "-V")
}

// programWalk visits a script's commands in order, looking up each
// program started by name, until a command that can change PATH.
type programWalk struct {
	funcs    map[string]bool // the functions the script defines
	seen     map[string]bool // the names looked up already
	lookPath func(string) (string, error)
	stopped  bool // PATH may have changed: nothing more is looked up
	missing  []string
}

func (w *programWalk) visit(n syntax.Node) bool {
	if _, decl := n.(*syntax.DeclClause); decl { // export, declare, ...
		w.stopped = true
	}
	call, ok := n.(*syntax.CallExpr)
	if w.stopped || !ok {
		return !w.stopped
	}
	if setsPATH(call) {
		w.stopped = true
		return false
	}
	for _, name := range started(literals(call.Args)) {
		switch {
		case envChangers[name]:
			w.stopped = true
			return false
		case name == "" || strings.Contains(name, "/") || builtins[name] || w.funcs[name] || w.seen[name]:
			continue
		}
		w.seen[name] = true
		if _, err := w.lookPath(name); err != nil {
			w.missing = append(w.missing, name)
		}
	}
	return true
}

// setsPATH reports whether call is an assignment of PATH alone
// (`PATH=...`), which changes it for what follows.
func setsPATH(call *syntax.CallExpr) bool {
	for _, a := range call.Assigns {
		if a.Name != nil && a.Name.Value == "PATH" && len(call.Args) == 0 {
			return true
		}
	}
	return false
}

// literals is the words' literal text, "" for a word that is not a plain
// literal (a variable, a substitution).
func literals(args []*syntax.Word) []string {
	out := make([]string, len(args))
	for i, w := range args {
		out[i] = checks.WordText(w)
	}
	return out
}

// started returns the programs a simple command starts: its first word,
// and the program a wrapper (env, exec, time, ...) runs.
func started(words []string) []string {
	var out []string
	for len(words) > 0 {
		name := words[0]
		out = append(out, name)
		skip, ok := wrappers[name]
		if !ok {
			break
		}
		words = words[1:]
		// The wrapper's options and, for env, assignments; for timeout and
		// nice -n, the value that follows.
		for len(words) > 0 && (strings.HasPrefix(words[0], "-") || name == "env" && strings.Contains(words[0], "=")) {
			if optionValue[name+" "+words[0]] {
				words = words[1:]
			}
			words = words[1:]
		}
		if skip && len(words) > 0 {
			words = words[1:] // timeout's duration
		}
	}
	return out
}

// wrappers start the program named after their options; true: one more
// argument (a duration) comes first.
var wrappers = map[string]bool{"env": false, "exec": false, "command": false, "nice": false, "nohup": false, "time": false, "timeout": true}

// optionValue names the wrapper options followed by a value.
var optionValue = map[string]bool{"nice -n": true, "timeout -k": true, "timeout -s": true, "env -u": true, "env -C": true}

// envChangers can change PATH for what follows them.
var envChangers = map[string]bool{".": true, "source": true, "eval": true, "export": true}

// probeCommands test whether a program exists.
var probeCommands = map[string]bool{"which": true, "type": true, "hash": true, "whereis": true}

// builtins of POSIX sh (and bash's common ones): never looked up on PATH.
var builtins = map[string]bool{
	":": true, "[": true, "[[": true, "alias": true, "bg": true, "break": true, "cd": true, "continue": true,
	"echo": true, "exit": true, "false": true, "fc": true, "fg": true, "getopts": true, "jobs": true,
	"kill": true, "local": true, "printf": true, "pwd": true, "read": true, "readonly": true, "return": true,
	"set": true, "shift": true, "test": true, "times": true, "trap": true, "true": true, "ulimit": true,
	"umask": true, "unalias": true, "unset": true, "wait": true, "let": true, "declare": true, "typeset": true,
	"pushd": true, "popd": true, "shopt": true, "exec": true, "command": true, "time": true,
}
