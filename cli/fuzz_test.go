package cli

import (
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/pflag"
)

// goWords are the messages of Go's parsers and encoders, which a user
// should never read.
var goWords = regexp.MustCompile(`strconv\.|invalid syntax|parsing "|(^|\s)(json|time): |error parsing regexp|unsupported value`)

// FuzzLoopFlags: any command line of `architect loop` (arguments separated
// by NUL) is either refused in plain words that name a flag, or gives a
// configuration its records can hold (it survives JSON), so a run that
// starts can be saved and resumed.
func FuzzLoopFlags(f *testing.F) {
	f.Add("--max-cost\x00NaN")
	f.Add("--max-cost=Inf\x00--check\x00true")
	f.Add("--max-time\x009300000000\x00--backoff-cap=0s")
	f.Add("--check-timeout=1e-12\x00--kill-grace\x00NaN")
	f.Add("--model=a\xffb\x00--agent-cmd=x")
	f.Add("--worktree-name\x00../x\x00--mode=plan")
	f.Add("-C\x00\x00--max-iterations=0x10")
	f.Add("--redact=(\x00--done-pattern=[")
	loopCmd := newLoopCmd(&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, lookup: noEnv})
	f.Fuzz(func(t *testing.T, argv string) {
		args := strings.Split(argv, "\x00")
		fs := pflag.NewFlagSet("loop", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var flagged config.Config
		config.RegisterFlags(fs, &flagged)
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, pflag.ErrHelp) {
				return // -h: cobra shows the help
			}
			var ue *usererr.Error
			if !errors.As(flagError(loopCmd, err), &ue) {
				t.Fatalf("%q: a parse error that is not a usage error: %v", args, err)
			}
			if goWords.MatchString(ue.Msg) || !strings.Contains(ue.Msg, "-") || ue.Hint == "" {
				t.Fatalf("%q: %q (hint %q): not plain words naming a flag, with a hint", args, ue.Msg, ue.Hint)
			}
			return
		}
		cfg, _, _, err := config.LoadSources("", "the task", noEnv, fs, &flagged)
		if err != nil {
			var es config.Errors
			if !errors.As(err, &es) {
				t.Fatalf("%q: %T %v: not a list of problems", args, err, err)
			}
			for _, e := range es {
				if goWords.MatchString(e.Error()) || e.Hint == "" {
					t.Fatalf("%q: %q (hint %q): not plain words, with a hint", args, e.Error(), e.Hint)
				}
			}
			return
		}
		data, err := json.Marshal(cfg)
		if err != nil {
			t.Fatalf("%q: an accepted configuration cannot be saved: %v", args, err)
		}
		// Go's encoder writes invalid UTF-8 as \ufffd, silently: the
		// records would hold another text (a valid U+FFFD is written as is).
		if strings.Contains(string(data), `\ufffd`) {
			t.Fatalf("%q: an accepted configuration is saved changed: %s", args, data)
		}
	})
}

func noEnv(string) (string, bool) { return "", false }
