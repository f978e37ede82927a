package agent

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// adapterOf returns the configuration every CLI adapter embeds.
func adapterOf(a Agent) cliAdapter {
	switch x := a.(type) {
	case *claude:
		return x.cliAdapter
	case *codex:
		return x.cliAdapter
	case *gemini:
		return x.cliAdapter
	case *opencode:
		return x.cliAdapter
	case *aider:
		return x.cliAdapter
	case *amp:
		return x.cliAdapter
	case *cursor:
		return x.cliAdapter
	}
	return cliAdapter{}
}

func TestNewAdapters(t *testing.T) {
	for name, bin := range map[string]string{"claude": "claude", "codex": "codex", "gemini": "gemini",
		"opencode": "opencode", "aider": "aider", "amp": "amp", "cursor": "cursor-agent"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			a, err := New(Config{Name: name})
			is.NoErr(err)
			is.Equal(a.Name(), name)
			is.Equal(adapterOf(a).bin, bin) // the CLI's usual executable
			is.True(adapterOf(a).now != nil)

			args := []string{"--x"}
			a, err = New(Config{Name: name, Bin: "/opt/" + name, Model: "m1", Args: args, Prices: Prices{"m1": {Input: 1}}})
			is.NoErr(err)
			c := adapterOf(a)
			is.Equal(c.bin, "/opt/"+name) // --agent-bin
			is.Equal(c.model, "m1")       // --model
			is.Equal(c.args, []string{"--x"})
			is.Equal(c.prices["m1"].Input, 1.0)
			args[0] = "changed"
			is.Equal(c.args, []string{"--x"}) // the adapter keeps its own copy
		})
	}
}

// The shared run reads a last line that has no newline (the CLI exited
// without one), through a pipe (codex) as through a file (claude): the
// outcome is the one the same output with a newline gives.
func TestRunReadsALastLineWithoutNewline(t *testing.T) {
	for _, tc := range []struct{ agent, file string }{{"claude", "success.jsonl"}, {"codex", "success.jsonl"}} {
		t.Run(tc.agent, func(t *testing.T) {
			is := is.New(t)
			out := bytes.TrimRight(testdata(t, tc.agent, tc.file), "\n")
			run := func(stdout []byte) Outcome {
				f := newFakeAgent(t, stdout, nil, 0, "")
				a, err := New(Config{Name: tc.agent, Bin: f.bin, Model: "gpt-5.5"})
				is.NoErr(err)
				var acts []string
				o := a.Run(context.Background(), fakeRequest(t, "x", &acts))
				o.Duration = 0
				return o
			}
			with, without := run(append(slices.Clone(out), '\n')), run(out)
			is.Equal(with.ErrKind, ErrNone)
			is.True(with.FinalMessage != "" && with.Usage != (Usage{})) // the figures of the last lines were read
			is.Equal(without, with)
		})
	}
}

// A result line longer than the line limit, run through the shared run,
// still gives its figures and the end of its text, from the line's tail.
func TestRunReadsTheTailOfALongLine(t *testing.T) {
	is := is.New(t)
	text := strings.Repeat("word ", claudeMaxLine/4) + "<promise>COMPLETE</promise>"
	line := `{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"` + text +
		`","total_cost_usd":0.5,"usage":{"input_tokens":100,"output_tokens":20}}` + "\n"
	is.True(len(line) > claudeMaxLine) // longer than the line limit
	f := newFakeAgent(t, []byte(line), nil, 0, "")
	a, err := New(Config{Name: "claude", Bin: f.bin})
	is.NoErr(err)
	var acts []string
	o := a.Run(context.Background(), fakeRequest(t, "x", &acts))
	is.Equal(o.ErrKind, ErrNone)
	is.True(o.CostKnown)
	is.Equal(o.Cost, 0.5)
	is.Equal(o.Usage, Usage{Input: 100, Output: 20})
	is.True(strings.HasSuffix(o.FinalMessage, "word <promise>COMPLETE</promise>"))
}

// How the shared run starts each CLI: Node CLIs that exit with
// process.exit write to a file, not a pipe (see fileOut); aider gets a wide
// terminal so that its report lines are not wrapped.
func TestRunStartsEachCLI(t *testing.T) {
	toFile := map[string]bool{"claude": true, "gemini": true, "amp": true, "cursor": true}
	for _, name := range Names() {
		if name == "command" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			dir := t.TempDir()
			bin := filepath.Join(dir, "fake")
			script := "#!/bin/sh\nout=$(readlink /proc/$$/fd/1)\nprintf '%s' \"$out\" > '" + dir + "/stdout'\nprintf '%s' \"$COLUMNS\" > '" + dir + "/columns'\n"
			is.NoErr(os.WriteFile(bin, []byte(script), 0o755))
			a, err := New(Config{Name: name, Bin: bin})
			is.NoErr(err)
			var acts []string
			req := fakeRequest(t, "x", &acts)
			req.Env = append(req.Env, "COLUMNS=")
			a.Run(context.Background(), req)
			out, err := os.ReadFile(filepath.Join(dir, "stdout"))
			is.NoErr(err)
			is.Equal(!strings.HasPrefix(string(out), "pipe:"), toFile[name]) // stdout is a file, not a pipe
			columns, err := os.ReadFile(filepath.Join(dir, "columns"))
			is.NoErr(err)
			if name == "aider" {
				is.Equal(string(columns), "1000")
			} else {
				is.Equal(string(columns), "")
			}
		})
	}
}
