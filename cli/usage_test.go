package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Usage and configuration errors exit 2 with an error and a hint.
func TestUsageErrors(t *testing.T) {
	repo := gitRepo(t)
	work := filepath.Dir(repo)
	plain := filepath.Join(work, "plain")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"loop", "-C", "repo", "--check", "true", "--agent-cmd", "true"},
			[]string{`^architect: error: task: no task given$`, `^architect: hint: `}},
		{[]string{"loop", "task", "-C", "repo", "--spec", "nope.md", "--agent-cmd", "true"},
			[]string{`architect: error: .*specification file not found: .*nope.md`, `architect: hint: `}},
		{[]string{"loop", "task", "extra words", "-C", "repo"},
			[]string{`expected one TASK argument`, `hint: quote the task`}},
		{[]string{"loop", "task", "-C", "repo", "--max-iterations", "0", "--agent-cmd", "true"},
			[]string{`^architect: error: --max-iterations: 0 is out of range$`}},
		{[]string{"loop", "task", "-C", "repo", "--agent", "nosuch"},
			[]string{`unknown agent "nosuch"`}},
		{[]string{"loop", "task", "-C", "repo", "--no-such-flag"},
			[]string{`architect: error: unknown flag: --no-such-flag`, "architect: hint: run `architect loop --help`"}},
		{[]string{"frobnicate"},
			[]string{`unknown command "frobnicate"`}},
		{[]string{"loop", "task", "-C", filepath.Join(work, "nodir"), "--worktree", "--agent-cmd", "true", "--check", "true"},
			[]string{`^architect: error: --dir .*nodir: no such folder$`, `^architect: hint: give -C an existing folder`}},
		{[]string{"loop", "task", "-C", "plain", "--worktree", "--agent-cmd", "true", "--check", "true"},
			[]string{`not in a git repository`, "hint: run `git init`"}},
	} {
		r := mainIn(t, work, tc.args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr:\n%s", tc.args, r.code, r.stderr)
		}
		for _, w := range tc.want {
			has(t, "architect "+tc.args[0], r.stderr, w)
		}
	}
	r := mainIn(t, work, "loop", "--help").status(t, 0)
	has(t, "loop --help", r.stdout, `^  architect loop \[TASK\] \[flags\]$`)
	has(t, "loop --help", r.stdout, `--check`)
}

// A bad value names the flag, variable or key once and says what is
// wrong in plain words: never Go's parser text (strconv.ParseFloat: ...).
func TestBadValuesInPlainWords(t *testing.T) {
	repo := gitRepo(t)
	work := filepath.Dir(repo)
	for name, text := range map[string]string{
		"bad.yaml":        "ralph_loop:\n  max_cost: lots\n",
		"bad-regexp.yaml": "ralph_loop:\n  done_pattern: \"(unclosed\"\n",
	} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		env        string // NAME=VALUE set for the call
		args       []string
		want, lack []string
	}{
		{args: []string{"loop", "task", "-C", "repo", "--max-cost", "lots", "--agent-cmd", "true"},
			want: []string{`^architect: error: --max-cost: "lots" is not a number$`, `^architect: hint: give --max-cost an amount in USD \(`},
			lack: []string{`strconv|parsing|invalid syntax|max_cost`}},
		{args: []string{"loop", "task", "-C", "repo", "--max-iterations", "ten", "--agent-cmd", "true"},
			want: []string{`^architect: error: --max-iterations: "ten" is not a whole number$`}},
		{args: []string{"loop", "task", "-C", "repo", "--check-timeout", "soon", "--agent-cmd", "true"},
			want: []string{`^architect: error: --check-timeout: "soon" is not a duration`, `^architect: hint: give --check-timeout a number of seconds or a duration like 1m30s \(`}},
		{args: []string{"loop", "task", "-C", "repo", "--max-time", "soon", "--agent-cmd", "true"},
			want: []string{`^architect: hint: give --max-time a number of seconds or a duration like 1m30s \(`}},
		{args: []string{"loop", "task", "-C", "repo", "--worktree=maybe", "--agent-cmd", "true"},
			want: []string{`^architect: error: --worktree: "maybe" is not true or false$`}},
		{args: []string{"batch", "x.yaml", "--parallel", "two"},
			want: []string{`^architect: error: --parallel: "two" is not a whole number$`},
			lack: []string{`strconv|parsing`}},
		// out of range: the flag once, not the key again
		{args: []string{"loop", "task", "-C", "repo", "--max-iterations", "0", "--agent-cmd", "true"},
			want: []string{`^architect: error: --max-iterations: 0 is out of range$`, `^architect: hint: use a number from 1 to 1000$`}},
		// the environment: the variable once
		{env: "ARCHITECT_MAX_COST=lots", args: []string{"loop", "task", "-C", "repo", "--agent-cmd", "true"},
			want: []string{`^architect: error: ARCHITECT_MAX_COST: "lots" is not a number$`, `^architect: hint: fix or unset ARCHITECT_MAX_COST$`}},
		// the file: file, line and key
		{args: []string{"loop", "task", "-c", "bad.yaml", "-C", "repo", "--agent-cmd", "true"},
			want: []string{`^architect: error: bad.yaml:2: max_cost: "lots" is not a number$`}},
		{args: []string{"loop", "task", "-c", "bad-regexp.yaml", "-C", "repo", "--agent-cmd", "true"},
			want: []string{"^architect: error: bad-regexp.yaml:2: done_pattern: not a valid regular expression: missing closing \\) in `\\(unclosed`$"},
			lack: []string{`error parsing regexp|strconv`}},
		// every error has its hint
		{args: []string{"loop", "task", "-C", "repo", "--redact", "(", "--agent-cmd", "true"},
			want: []string{"^architect: error: --redact: missing closing \\) in `\\(`$", `^architect: hint: `}},
	} {
		var env []string
		if tc.env != "" {
			env = []string{tc.env}
		}
		r := mainEnv(t, work, env, tc.args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr:\n%s", tc.args, r.code, r.stderr)
		}
		for _, w := range tc.want {
			has(t, "architect "+strings.Join(tc.args, " "), r.stderr, w)
		}
		for _, l := range tc.lack {
			lacks(t, "architect "+strings.Join(tc.args, " "), r.stderr, l)
		}
	}
}

// architect report needs a run.
func TestReportNeedsARun(t *testing.T) {
	empty := t.TempDir()
	r := mainIn(t, "", "report", "-C", empty).status(t, 2)
	has(t, "report", r.stderr, `^architect: error: no architect run in `)
	has(t, "report", r.stderr, `^architect: hint: `)
	r = mainIn(t, "", "report", "-C", empty, "extra").status(t, 2)
	has(t, "report extra", r.stderr, `report takes no arguments`)
}
