//go:build unix

package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// How a row tells that its value was accepted.
const (
	judgeDryRun = "dry-run" // loop --dry-run --json: the resolved configuration on stdout, nothing written
	judgeMatrix = "matrix"  // batch --matrix: the file was read and validated, nothing written
	judgeRun    = "run"     // the command ran to its end (exit 0 or 1)
	judgeHelp   = "help"    // the value parsed: the command's help follows
	judgeGroup  = "group"   // batch --matrix, one task per value: each refused by an error naming it, or accepted
	judgePlain  = "plain"   // the command did what it does without the flag, or ran
)

// A row is one generated input tried through the binary.
type row struct {
	name  string   // "loop --max-cost=NaN", "ARCHITECT_MAX_COST=NaN", "ralph.yaml ralph_loop.max_cost=NaN"
	names []string // what a refusal must name: the flag, the key, the variable
	kind  string
	v     value
	group []value       // for judgeGroup: the values, one task each
	ran   bool          // the workspace holds a finished run
	args  []string      // the command line
	env   []string      // extra variables
	file  func() string // the text of fx/row.yaml, written before the run (nil: none)
	judge string
	// real is the command line of the real run that follows an accepted
	// dry run (nil: none), and command the command a plain row runs.
	real    []string
	command string
}

// loopBase is the loop's command line every loop row starts from, less
// the flag under test: base.yaml, or, when -c is under test, the same
// options as flags (which a file given with -c cannot override).
func loopBase(except string, dry bool) []string {
	args := []string{"loop"}
	if except != "config" {
		args = append(args, "-c", fxRel+"/base.yaml")
	} else {
		args = append(args, "make the door hold", "--agent-cmd", "true", "--check", "true", "--max-iterations", "1", "--backoff-cap", "0")
	}
	if dry && except != "dry-run" {
		args = append(args, "--dry-run")
	}
	if dry && except != "json" {
		args = append(args, "--json")
	}
	return args
}

// flagRows is a row for every value of every flag of every command that
// is not hidden, walking the command tree: flags added later are covered.
func flagRows(root *cobra.Command) []row {
	var rows []row
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		c.InitDefaultHelpFlag()
		path := strings.Fields(c.CommandPath())[1:]
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if fl.Hidden {
				return
			}
			kind, enum := flagKind(c, fl)
			names := []string{"--" + fl.Name}
			if fl.Shorthand != "" {
				names = append(names, "-"+fl.Shorthand)
			}
			if c.Name() == "loop" { // the pre-flight names a check "check `CMD`", the agent "agent NAME"
				names = append(append(names, fl.Name), optionNames(fl.Name)...)
			}
			for _, v := range valuesFor(kind, enum, fxRel) {
				if v.fileOnly || v.yaml != "" {
					continue
				}
				arg := "--" + fl.Name + "=" + v.text
				r := row{name: strings.Join(append(path, "--"+fl.Name+"="+v.label), " "), names: withValue(names, kind, v), kind: kind, v: v}
				switch p := c.CommandPath(); {
				case p == "architect loop" && fl.Name == "dry-run": // false: a real run
					r.judge, r.args = judgeRun, append(loopBase(fl.Name, false), arg)
				case p == "architect loop":
					r.judge, r.args = judgeDryRun, append(loopBase(fl.Name, true), arg)
					r.real = append(loopBase(fl.Name, false), arg)
				case p == "architect batch":
					r.judge, r.args = judgeRun, []string{"batch", fxRel + "/batch.yaml", arg}
				case p == "architect demo": // a real demo takes a minute: its flags are only parsed
					r.judge, r.args = judgeHelp, []string{"demo", arg, "--help"}
				default:
					r.judge, r.args, r.ran, r.command = judgePlain, append(slices.Clone(path), arg), true, c.CommandPath()
				}
				rows = append(rows, r)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return rows
}

// withValue adds a path value to the names a refusal may give: an error
// that quotes the file given ("../fx/file.md:2: …") names it, as written
// or escaped.
func withValue(names []string, kind string, v value) []string {
	if kind == kindPath && len(v.text) > 3 {
		return append(slices.Clone(names), v.text, strings.Trim(strconv.Quote(v.text), `"`))
	}
	return names
}

// optionNames are the names of the option behind a loop flag: its key and
// its variable.
func optionNames(flag string) []string {
	for _, o := range config.Options() {
		if o.Flag == flag {
			return []string{o.Key, o.Env}
		}
	}
	return nil
}

// flagKind tells the kind of a flag's value: its type, refined by the
// value's name in its help (`file`, `command`), its completion (files,
// folders, a fixed list of words).
func flagKind(c *cobra.Command, fl *pflag.Flag) (string, []string) {
	switch fl.Value.Type() {
	case "bool":
		return kindBool, nil
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count":
		return kindInt, nil
	case "float32", "float64":
		return kindNumber, nil
	case "duration":
		return kindDuration, nil
	}
	name, _ := pflag.UnquoteUsage(fl)
	switch strings.ToLower(name) {
	case "file", "path", "directory", "dir", "folder":
		return kindPath, nil
	case "command":
		return kindCommand, nil
	}
	for _, a := range []string{cobra.BashCompFilenameExt, cobra.BashCompSubdirsInDir} {
		if _, ok := fl.Annotations[a]; ok {
			return kindPath, nil
		}
	}
	if complete, ok := c.GetFlagCompletionFunc(fl.Name); ok {
		words, directive := complete(c, nil, "")
		if directive&cobra.ShellCompDirectiveNoFileComp != 0 && len(words) > 0 {
			for i, w := range words {
				words[i], _, _ = strings.Cut(w, "\t")
			}
			return kindEnum, words
		}
	}
	if strings.HasSuffix(fl.Value.Type(), "Array") || strings.HasSuffix(fl.Value.Type(), "Slice") {
		return kindList, nil
	}
	return kindString, nil
}

var envInUsage = regexp.MustCompile(`ARCHITECT_[A-Z_]+`)

// envRows is a row for every value of every ARCHITECT_* variable: those of
// the option table, and those a loop flag's help names (ARCHITECT_CONFIG).
func envRows(loop *cobra.Command) []row {
	var rows []row
	add := func(name, flag string, names []string, kind string, enum []string) {
		for _, v := range valuesFor(kind, enum, fxRel) {
			if v.fileOnly || v.yaml != "" {
				continue
			}
			except := flag
			if v.text == "" {
				except = "" // an empty variable is unset: the base is whole
			}
			rows = append(rows, row{
				name: name + "=" + v.label, names: withValue(names, kind, v), kind: kind, v: v, env: []string{name + "=" + v.text},
				judge: judgeDryRun, args: loopBase(except, true),
			})
		}
	}
	seen := map[string]bool{}
	for _, o := range config.Options() {
		if o.Env == "" {
			continue
		}
		seen[o.Env] = true
		kind, enum := optionKind(loop, o)
		add(o.Env, o.Flag, []string{o.Env, o.Key, o.Flag}, kind, enum)
	}
	loop.Flags().VisitAll(func(fl *pflag.Flag) {
		for _, name := range envInUsage.FindAllString(fl.Usage, -1) {
			if !seen[name] {
				seen[name] = true
				kind, enum := flagKind(loop, fl)
				add(name, fl.Name, []string{name, "--" + fl.Name}, kind, enum)
			}
		}
	})
	return rows
}

// optionKind is the kind of an option's value: its flag's, or its own.
func optionKind(loop *cobra.Command, o config.OptionInfo) (string, []string) {
	if fl := loop.Flags().Lookup(o.Flag); o.Flag != "" && fl != nil {
		return flagKind(loop, fl)
	}
	if o.Values != nil {
		return kindEnum, o.Values
	}
	return o.Kind, nil
}
