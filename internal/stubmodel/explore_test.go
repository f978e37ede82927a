package stubmodel

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestExploreCodex(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	ws := t.TempDir()
	turns := []Turn{
		{ToolCalls: []ToolCall{{Name: "apply_patch", Input: "*** Begin Patch\n*** Add File: hello.txt\n+hello world\n*** End Patch\n"}}, Usage: Usage{Input: 100, CachedInput: 20, Output: 10}},
		{ToolCalls: []ToolCall{{Name: "exec_command", Args: map[string]any{"cmd": "echo hi > hi.txt; cat hello.txt"}}}, Usage: Usage{Input: 200, CachedInput: 50, Output: 15}},
		{Text: "Done. <promise>COMPLETE</promise>", Usage: Usage{Input: 300, CachedInput: 100, Output: 20}},
	}
	if v := os.Getenv("EXPLORE_STATUS"); v != "" {
		var st int
		fmt.Sscan(v, &st)
		turns = []Turn{{Status: st, ErrorBody: os.Getenv("EXPLORE_BODY")}}
	}
	s := OpenAI(t, Sequence(turns...))
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	os.MkdirAll(codexHome, 0o755)
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(s.CodexConfig("gpt-5.5")), 0o644)
	args := []string{"exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "-m", "gpt-5.5", "-"}
	cmd := exec.Command("/work/main/.cache/agents/node_modules/.bin/codex", args...)
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + home, "CODEX_HOME=" + codexHome, "STUB_API_KEY=sk-stub", "PATH=" + os.Getenv("PATH")}
	cmd.Stdin = bytes.NewReader([]byte("Write hello.txt. Say <promise>COMPLETE</promise> when done."))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	st := time.Now()
	err := cmd.Run()
	t.Logf("err=%v dur=%s", err, time.Since(st))
	os.WriteFile("/tmp/explore/codex.stdout", out.Bytes(), 0o644)
	os.WriteFile("/tmp/explore/codex.stderr", errb.Bytes(), 0o644)
	var reqs bytes.Buffer
	for _, r := range s.Requests() {
		fmt.Fprintf(&reqs, "%s %s\n%v\n%s\n\n", r.Method, r.Path, r.Header, r.Body)
	}
	os.WriteFile("/tmp/explore/codex.requests", reqs.Bytes(), 0o644)
	filepath.Walk(ws, func(p string, _ os.FileInfo, _ error) error { t.Log(p); return nil })
}

func TestExploreGemini(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	ws := t.TempDir()
	turns := []Turn{
		{ToolCalls: []ToolCall{{Name: "write_file", Args: map[string]any{"file_path": filepath.Join(ws, "hello.txt"), "content": "hello world\n"}}}, Usage: Usage{Input: 100, CachedInput: 20, Output: 10}},
		{ToolCalls: []ToolCall{{Name: "run_shell_command", Args: map[string]any{"command": "echo hi > hi.txt; cat hello.txt"}}}, Usage: Usage{Input: 200, CachedInput: 50, Output: 15}},
		{Text: "Done. <promise>COMPLETE</promise>", Usage: Usage{Input: 300, CachedInput: 100, Output: 20}},
	}
	if v := os.Getenv("EXPLORE_STATUS"); v != "" {
		var st int
		fmt.Sscan(v, &st)
		turns = []Turn{{Status: st, ErrorBody: os.Getenv("EXPLORE_BODY")}}
	}
	s := Gemini(t, Sequence(turns...))
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(GeminiSettings()), 0o644)
	args := []string{"-m", "gemini-2.5-pro", "--output-format", os.Getenv("EXPLORE_FMT"), "--yolo"}
	if os.Getenv("EXPLORE_P") != "" {
		args = append(args, "-p", "Write hello.txt. Say <promise>COMPLETE</promise> when done.")
	}
	cmd := exec.Command("/work/main/.cache/agents/node_modules/.bin/gemini", args...)
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + home, "GOOGLE_GEMINI_BASE_URL=" + s.URL, "GEMINI_API_KEY=stub-key", "PATH=" + os.Getenv("PATH")}
	if os.Getenv("EXPLORE_P") == "" {
		cmd.Stdin = bytes.NewReader([]byte("Write hello.txt. Say <promise>COMPLETE</promise> when done."))
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	st := time.Now()
	err := cmd.Run()
	t.Logf("err=%v dur=%s", err, time.Since(st))
	os.WriteFile("/tmp/explore/gemini.stdout", out.Bytes(), 0o644)
	os.WriteFile("/tmp/explore/gemini.stderr", errb.Bytes(), 0o644)
	var reqs bytes.Buffer
	for _, r := range s.Requests() {
		fmt.Fprintf(&reqs, "%s %s\n%v\n%s\n\n", r.Method, r.Path, r.Header, r.Body)
	}
	os.WriteFile("/tmp/explore/gemini.requests", reqs.Bytes(), 0o644)
	filepath.Walk(ws, func(p string, _ os.FileInfo, _ error) error { t.Log(p); return nil })
}
