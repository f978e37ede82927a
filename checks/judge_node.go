package checks

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
)

// How the judge follows the package managers of JavaScript (npm, pnpm,
// yarn, bun) to the package.json scripts and configuration that define a
// check.

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
