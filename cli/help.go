package cli

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpWidth is where flag descriptions wrap.
const helpWidth = 100

// usage prints a command's usage: the line, the examples, its commands by
// group, and its flags, by help section when they have one
// (config.GroupAnnotation), in the order of config.FlagGroups.
func usage(c *cobra.Command) error {
	w := c.OutOrStderr()
	fmt.Fprint(w, "Usage:")
	if c.Runnable() {
		fmt.Fprintf(w, "\n  %s", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n  %s <command> [flags]", c.CommandPath())
	}
	if c.HasExample() {
		fmt.Fprintf(w, "\n\nExamples:\n%s", c.Example)
	}
	if c.HasAvailableSubCommands() {
		printCommands(w, c)
	}
	printFlags(w, c)
	switch {
	case c.HasAvailableSubCommands() && !c.HasParent():
		fmt.Fprintf(w, "\n\nRun `%s help <command>` (or `%s <command> --help`) for a command's flags and examples.", c.CommandPath(), c.CommandPath())
	case c.HasAvailableSubCommands():
		fmt.Fprintf(w, "\n\nRun `%s <command> --help` for a command's flags and examples.", c.CommandPath())
	}
	fmt.Fprintln(w)
	return nil
}

func printCommands(w io.Writer, c *cobra.Command) {
	shown := func(sub *cobra.Command) bool { return sub.IsAvailableCommand() || sub.Name() == "help" }
	groups := c.Groups()
	if len(groups) == 0 {
		groups = []*cobra.Group{{Title: "Commands:"}}
	}
	for _, g := range groups {
		var lines []string
		for _, sub := range c.Commands() {
			if shown(sub) && (sub.GroupID == g.ID || g.ID == "" && len(c.Groups()) == 0) {
				lines = append(lines, fmt.Sprintf("  %-11s %s", sub.Name(), sub.Short))
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "\n\n%s\n%s", g.Title, strings.Join(lines, "\n"))
		}
	}
}

func printFlags(w io.Writer, c *cobra.Command) {
	sections := map[string]*pflag.FlagSet{}
	var other []*pflag.Flag
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		g := f.Annotations[config.GroupAnnotation]
		if len(g) == 0 {
			other = append(other, f)
			return
		}
		fs := sections[g[0]]
		if fs == nil {
			fs = pflag.NewFlagSet(g[0], pflag.ContinueOnError)
			fs.SortFlags = false
			sections[g[0]] = fs
		}
		fs.AddFlag(f)
	})
	if len(sections) == 0 {
		printFlagSet(w, "Flags:", other)
		return
	}
	for _, g := range config.FlagGroups() {
		if fs := sections[g]; fs != nil {
			fmt.Fprintf(w, "\n\n%s:\n%s", g, strings.TrimRight(fs.FlagUsagesWrapped(helpWidth), " \n"))
			delete(sections, g)
		}
	}
	var rest []string
	for g := range sections {
		rest = append(rest, g)
	}
	sort.Strings(rest)
	for _, g := range rest {
		fmt.Fprintf(w, "\n\n%s:\n%s", g, strings.TrimRight(sections[g].FlagUsagesWrapped(helpWidth), " \n"))
	}
	printFlagSet(w, "Other flags:", other)
}

func printFlagSet(w io.Writer, title string, flags []*pflag.Flag) {
	if len(flags) == 0 {
		return
	}
	fs := pflag.NewFlagSet(title, pflag.ContinueOnError)
	fs.SortFlags = false
	for _, f := range flags {
		fs.AddFlag(f)
	}
	fmt.Fprintf(w, "\n\n%s\n%s", title, strings.TrimRight(fs.FlagUsagesWrapped(helpWidth), " \n"))
}

// group puts the flags named into a help section.
func group(c *cobra.Command, section string, names ...string) {
	for _, n := range names {
		if err := c.Flags().SetAnnotation(n, config.GroupAnnotation, []string{section}); err != nil {
			panic(err) // a flag name misspelt here
		}
	}
}

// flagError turns pflag's parse errors into usage errors that name the
// flag once, say what is wrong with the value in plain words (never
// strconv's "parsing ...: invalid syntax"), and suggest the closest flag
// for one architect does not know.
func flagError(c *cobra.Command, err error) error {
	hint := fmt.Sprintf("run `%s --help` to see the flags", c.CommandPath())
	var notExist *pflag.NotExistError
	var required *pflag.ValueRequiredError
	var invalid *pflag.InvalidValueError
	var syntax *pflag.InvalidSyntaxError
	switch {
	case errors.As(err, &notExist):
		if s := notExist.GetSpecifiedShortnames(); s != "" {
			return &usererr.Error{Msg: fmt.Sprintf("unknown flag: -%s (in -%s)", notExist.GetSpecifiedName()[:1], s), Hint: hint}
		}
		name := notExist.GetSpecifiedName()
		if s := closestFlag(c, name); s != "" {
			hint = fmt.Sprintf("did you mean --%s? (%s)", s, hint)
		}
		return &usererr.Error{Msg: "unknown flag: --" + name, Hint: hint}
	case errors.As(err, &required):
		f := required.GetFlag()
		return &usererr.Error{Msg: fmt.Sprintf("--%s needs a value", f.Name), Hint: fmt.Sprintf("give it one: --%s %s (%s)", f.Name, valueName(f), hint)}
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		return &usererr.Error{Msg: fmt.Sprintf("--%s: %s", f.Name, valueProblem(invalid.GetValue(), errors.Unwrap(err))), Hint: fmt.Sprintf("give --%s %s (%s)", f.Name, valueName(f), hint)}
	case errors.As(err, &syntax):
		return &usererr.Error{Msg: "malformed flag " + syntax.GetSpecifiedFlag(), Hint: "flags are -x or --name (" + hint + ")"}
	}
	return &usererr.Error{Msg: err.Error(), Hint: hint, Err: err}
}

// valueProblem says what is wrong with value in plain words.
func valueProblem(value string, cause error) string {
	var ne *strconv.NumError
	if errors.As(cause, &ne) {
		switch {
		case ne.Func == "ParseBool":
			return fmt.Sprintf("%q is not true or false", value)
		case ne.Func == "ParseFloat":
			return fmt.Sprintf("%q is not a number", value)
		case errors.Is(ne.Err, strconv.ErrRange):
			return fmt.Sprintf("%q is out of range", value)
		default:
			return fmt.Sprintf("%q is not a whole number", value)
		}
	}
	if cause == nil {
		return fmt.Sprintf("%q is not a valid value", value)
	}
	if strings.HasPrefix(cause.Error(), "time: ") {
		return fmt.Sprintf("%q is not a duration", value)
	}
	return cause.Error()
}

// valueName is what a flag's value is, for hints: its help's NAME, or a
// word for its type.
func valueName(f *pflag.Flag) string {
	if f.Value.Type() == "duration" {
		return "a number of seconds or a duration like " + config.FormatDuration(90*time.Second)
	}
	name, _ := pflag.UnquoteUsage(f)
	switch name {
	case "USD":
		return "an amount in USD"
	case "":
		return "true or false"
	case "int":
		return "a whole number"
	case "float":
		return "a number"
	case "string", "stringArray":
		return "a value"
	}
	if strings.ContainsRune("aeiouAEIOU", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// closestFlag is the flag of c nearest to name, "" when none is near.
func closestFlag(c *cobra.Command, name string) string {
	best, bestD := "", 3
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := config.EditDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}
