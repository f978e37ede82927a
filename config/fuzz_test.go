package config

import (
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/spf13/pflag"
)

// FuzzConfigYAML: whatever the file holds, loading it never panics, and a
// failure is a list of problems that each name where they are. A file that
// is accepted gives a configuration that the run's records can hold: it
// survives JSON (state.json) unchanged, so the run can be resumed.
func FuzzConfigYAML(f *testing.F) {
	f.Add("ralph_loop:\n  checks: [\"go test ./...\"]\n  max_iterations: 5\n  protect: ['tests/**']\n  redact: ['ghp_[A-Za-z0-9]+']\n")
	f.Add("ralph_loop:\n  max_cost: abc\n  bogus: 1\n")
	f.Add("prices:\n  m: {input: 1, output: -2}\n")
	f.Add("ralph_loop: [1, 2]\n")
	f.Add("&a [*a]")
	f.Add("ralph_loop:\n  check_timeout: 2m\n  agent_args:\n    - {x: 1}\n")
	f.Add("ralph_loop:\n  max_cost: NaN\n")
	f.Add("prices:\n  m: {input: .nan, output: .inf}\n")
	f.Add("ralph_loop:\n  model: \"a\\xffb\"\n  max_time: 9300000000\n")
	f.Add("ralph_loop:\n  checks: [true]\n  candidates: 3\n  candidates_finish: all\n  candidates_lessons: off\n")
	f.Add("ralph_loop:\n  checks: [true]\n  candidates: [{agent: claude, model: sonnet}, {agent: codex}, {agent: command, agent_cmd: \"./a.sh\\n--x\"}]\n")
	f.Add("ralph_loop:\n  candidates: [{agent: nope, modle: 1}, [x], {agent: {a: b}}]\n")
	f.Add("ralph_loop:\n  candidates: []\n  candidates_finish: best\n")
	f.Fuzz(func(t *testing.T, data string) {
		path := filepath.Join(t.TempDir(), "ralph.yaml")
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := loadFileOnly(path)
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("loadFileOnly error %T %v: not a list of problems", err, err)
			}
			for _, e := range es {
				if e.Source == "" || e.Msg == "" {
					t.Fatalf("problem without a source or a message: %+v", e)
				}
				plainWords(t, e)
			}
			return
		}
		c, _, _, err := LoadSources(path, "the task", noEnv, nil, nil)
		if err != nil {
			for _, e := range err.(Errors) {
				plainWords(t, e)
			}
			return
		}
		roundTrip(t, c)
	})
}

// FuzzOptionValue: any text for any option, through the environment (and
// a YAML scalar, which is read the same way) and through its flag, is
// either refused in plain words naming the option, or gives a
// configuration that survives JSON unchanged (so a run that starts can be
// saved and resumed).
func FuzzOptionValue(f *testing.F) {
	for _, o := range options {
		for _, v := range []string{"", "0", "-1", "NaN", "Inf", "1e309", "9223372036854775808", "a\xffb", "\x1b[31m", "x\x00y", "2fortnights"} {
			f.Add(o.key, v)
		}
	}
	f.Fuzz(func(t *testing.T, key, text string) {
		o, ok := lookupOption(key)
		if !ok {
			o = options[int(crc32.ChecksumIEEE([]byte(key)))%len(options)]
		}
		base := func() Config {
			c := Defaults()
			c.Task, c.Agent, c.AgentCmd, c.Checks = "the task", "command", "true", []string{"true"}
			return c
		}
		// The environment (and a YAML scalar: setFromNode calls set).
		if o.env || o.yaml {
			c := base()
			if err := o.set(&c, text, true); err != nil {
				plainWords(t, &Error{Key: o.key, Msg: err.Error()})
			} else if _, err := c.validate(Sources{o.key: o.envName()}); err != nil {
				named(t, err, o.key, o.envName())
			} else {
				roundTrip(t, c)
			}
		}
		// The flag.
		if o.flag == "-" {
			return
		}
		fs := pflag.NewFlagSet("loop", pflag.ContinueOnError)
		var flagged Config
		RegisterFlags(fs, &flagged)
		if err := fs.Set(o.flagName(), text); err != nil {
			return // pflag's parse errors are worded by cli (FuzzLoopFlags)
		}
		c := base()
		src := Sources{}
		applyFlags(fs, &flagged, &c, src)
		if _, err := c.validate(src); err != nil {
			named(t, err, o.key, "--"+o.flagName())
			return
		}
		roundTrip(t, c)
	})
}

// quoted is a Go-quoted string (%q) inside a message.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// goWords are the messages of Go's parsers and encoders.
var goWords = regexp.MustCompile(`strconv\.|invalid syntax|parsing "|(^|\s)(json|time): |error parsing regexp|unsupported value`)

func plainWords(t *testing.T, e *Error) {
	t.Helper()
	// The user's own text, quoted back to them, may hold any words.
	if goWords.MatchString(quoted.ReplaceAllString(e.Error(), `""`)) {
		t.Fatalf("a Go parser's words reach the user: %q", e.Error())
	}
}

// named checks that every problem is in plain words, and that the one
// about the option tried names it (its source is the flag or variable).
func named(t *testing.T, err error, key, source string) {
	t.Helper()
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("validate: %T %v: not a list of problems", err, err)
	}
	for _, e := range es {
		plainWords(t, e)
		if e.Key == key && e.Source != source {
			t.Fatalf("the problem with %s does not name %s: %q", key, source, e.Error())
		}
	}
}

// roundTrip checks that c, as state.json holds it, reads back the same.
func roundTrip(t *testing.T, c Config) {
	t.Helper()
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatalf("an accepted configuration cannot be saved: %v", err)
	}
	var back Config
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("a saved configuration cannot be read: %v", err)
	}
	// The fields the records do not keep (json:"-": how this session shows
	// itself, where it runs) come from the session, not the file.
	bv, cv := reflect.ValueOf(&back).Elem(), reflect.ValueOf(c)
	for i := range cv.NumField() {
		if cv.Type().Field(i).Tag.Get("json") == "-" {
			bv.Field(i).Set(cv.Field(i))
		}
	}
	if !reflect.DeepEqual(normal(back), normal(c)) {
		t.Fatalf("a saved configuration reads back changed:\n saved %+v\n  read %+v", c, back)
	}
}

// normal makes empty lists and maps nil, as JSON's omitempty leaves them.
func normal(c Config) Config {
	for _, p := range []*[]string{&c.Checks, &c.AgentArgs, &c.Protect, &c.Redact} {
		if len(*p) == 0 {
			*p = nil
		}
	}
	if len(c.Prices) == 0 {
		c.Prices = nil
	}
	return c
}
