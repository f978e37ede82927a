package config

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"unicode"
	"unicode/utf8"
)

// Values are checked as they are read: whatever the run's records could
// not hold as given, or a person could not read back as written, is
// refused before anything starts, so that a run that starts can always be saved
// and resumed. The records are JSON: a number must be finite and a text
// valid UTF-8 (Go's encoder would fail on NaN, and silently turn invalid
// UTF-8 into U+FFFD, so that a resumed run would look for another file or
// run another command).

// multiLine options may hold tabs and line breaks: shell commands, and
// the task (which may also hold other control characters: it is prose,
// cleaned where it enters the prompt). Every item of a list option may
// hold them too (an agent argument, a check, a pattern). Other texts are
// names (of files, models, agents, worktrees), which hold no control
// character at all.
var multiLine = map[string]bool{"task": true, "agent_cmd": true, "on_iteration": true, "on_finish": true}

// The longest texts: a name (of a file, a model) cannot be longer than a
// path (PATH_MAX), and a command or argument than one argument of a
// process (Linux's MAX_ARG_STRLEN, less its NUL): sh -c CMD would fail at
// every iteration. The task has no limit: it reaches the agent through its
// prompt.
const (
	maxName = 4096
	maxArg  = 128<<10 - 1
)

// maxPattern bounds --redact and --done-pattern: a regular expression is
// matched in time proportional to its size times the text's, and every
// text architect writes goes through --redact.
const maxPattern = 1024

// checkValues reports every value that cannot be recorded or shown as
// given; src says where each came from.
func (c *Config) checkValues(src Sources) Errors {
	ps := &problems{src: src}
	c.checkOptionValues(ps)
	c.checkCandidateValues(ps)
	c.checkPrices(ps)
	c.checkPatterns(ps)
	if abs, err := filepath.Abs(c.Dir); err == nil && !utf8.ValidString(abs) {
		ps.add("dir", "the workspace's path is not valid UTF-8", "run architect from (or give -C) a folder whose path is UTF-8: the run's records name it")
	}
	if len(ps.errs) == 0 {
		if msg := c.doneFileProblem(); msg != "" {
			ps.add("done_file", msg, "give the path of a file the agent creates when it is done (relative to the workspace)")
		}
		for _, key := range c.unrecorded() {
			ps.add(key, "cannot be recorded as given (the run's state is JSON)", "give a finite number, or text in UTF-8")
		}
	}
	return ps.errs
}

// problems collects the problems found, each named by its key and where
// its value came from.
type problems struct {
	src  Sources
	errs Errors
}

func (ps *problems) add(key, msg, hint string) {
	ps.errs = append(ps.errs, &Error{Source: ps.src[key], Key: key, Msg: msg, Hint: hint})
}

// addErr adds the problem err, which says it in full, keeping it as the
// cause.
func (ps *problems) addErr(key string, err error, hint string) {
	ps.errs = append(ps.errs, errorOf(ps.src[key], key, err, hint))
}

// checkOptionValues checks every text, list item and number of the option
// table.
func (c *Config) checkOptionValues(ps *problems) {
	for _, o := range options {
		switch v := o.field(c).(type) {
		case *string:
			if msg, hint := textProblem(*v, o.key); msg != "" {
				ps.add(o.key, msg, hint)
			}
		case *[]string:
			for i, s := range *v {
				if msg, hint := textProblem(s, o.key+"[]"); msg != "" {
					ps.add(o.key, fmt.Sprintf("item %d %s", i+1, msg), hint)
				}
			}
		case *float64:
			if math.IsNaN(*v) || math.IsInf(*v, 0) {
				ps.add(o.key, fmt.Sprintf("%v is not a number", *v), "give a finite number, e.g. 5 or 2.50")
			}
		}
	}
}

// checkPrices checks that every model's prices are numbers.
func (c *Config) checkPrices(ps *problems) {
	for model, pr := range c.Prices {
		for _, f := range []float64{pr.Input, pr.CachedInput, pr.Output} {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				ps.add("prices", fmt.Sprintf("the price of %q is not a number: %v", model, f), "prices are USD per million tokens, e.g. 3.00")
				break
			}
		}
	}
}

// checkPatterns bounds the size of the regular expressions (maxPattern).
func (c *Config) checkPatterns(ps *problems) {
	for _, key := range []string{"redact", "done_pattern"} {
		for _, pat := range c.patterns(key) {
			if len(pat) > maxPattern {
				ps.add(key, fmt.Sprintf("a pattern of %d bytes is too long (at most %d)", len(pat), maxPattern), "match the secret's shape, e.g. 'ghp_[A-Za-z0-9]{36}', not its whole text")
			}
		}
	}
}

// doneFileProblem says why the done file can never signal completion: a
// folder is there, or the path cannot be looked at (a symlink loop, a file
// where a folder is needed). Relative to a worktree that does not exist
// yet, it cannot be told: the run checks it again when it starts.
func (c *Config) doneFileProblem() string {
	path := c.DoneFile
	if path == "" || !filepath.IsAbs(path) && c.Worktree {
		return ""
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(c.Dir, path)
	}
	switch fi, err := os.Stat(path); {
	case os.IsNotExist(err):
		return ""
	case err != nil:
		return path + ": " + unwrapPathErr(err)
	case fi.IsDir():
		return path + " is a directory"
	}
	return ""
}

func (c *Config) patterns(key string) []string {
	if key == "redact" {
		return c.Redact
	}
	if c.DonePattern == "" {
		return nil
	}
	return []string{c.DonePattern}
}

// textProblem says what is wrong with the text s of option key (key[] for
// an item of a list), in words that do not repeat it, with a hint.
func textProblem(s, key string) (msg, hint string) {
	multi := multiLine[key] || key[len(key)-1] == ']'
	switch {
	case key == "task":
	case multi && len(s) > maxArg:
		return fmt.Sprintf("is %d bytes long (at most %d: it is passed to a process as one argument)", len(s), maxArg), "shorten it, or put it in a script and give the script"
	case !multi && len(s) > maxName:
		return fmt.Sprintf("is %d bytes long (at most %d)", len(s), maxName), "shorten it"
	}
	if !utf8.ValidString(s) {
		return "is not valid UTF-8 text", "write it in UTF-8 (a file name: rename the file): the run's records are JSON, which holds UTF-8 only"
	}
	for _, r := range s {
		switch {
		case r == 0:
			return "contains a NUL byte", "remove it: no command, argument or file name can hold one"
		case key == "task":
		case (r == '\t' || r == '\n' || r == '\r') && multi:
		case unicode.IsControl(r):
			return fmt.Sprintf("contains the control character %U", r), "remove it: a terminal escape or line break cannot be shown as written in a name"
		}
	}
	return "", ""
}

// unrecorded lists the options whose value would not come back the same
// from the run's records (JSON): what the checks above missed, for options
// of kinds they do not know.
func (c *Config) unrecorded() []string {
	var keys []string
	for _, o := range options {
		v := reflect.ValueOf(o.field(c)).Elem()
		data, err := json.Marshal(v.Interface())
		back := reflect.New(v.Type())
		if err == nil {
			err = json.Unmarshal(data, back.Interface())
		}
		if err != nil || !reflect.DeepEqual(back.Elem().Interface(), v.Interface()) && !(v.Kind() == reflect.Slice && v.Len() == 0) {
			keys = append(keys, o.key)
		}
	}
	if _, err := json.Marshal(c.Prices); err != nil {
		keys = append(keys, "prices")
	}
	return keys
}
