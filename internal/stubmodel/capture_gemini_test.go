package stubmodel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Temporary: captures real CLI output into agent/testdata. Deleted after use.
func TestCaptureGemini(t *testing.T) {
	if os.Getenv("CAPTURE") == "" {
		t.Skip()
	}
	out := "/work/main/agent/testdata/gemini"
	os.MkdirAll(out, 0o755)
	type tc struct {
		turns func(ws string) []Turn
		noKey bool
		url   string
	}
	fixed := func(ts ...Turn) func(string) []Turn { return func(string) []Turn { return ts } }
	cases := map[string]tc{
		"success": {turns: func(ws string) []Turn {
			return []Turn{
				{Text: "I'll write the file now.", ToolCalls: []ToolCall{{Name: "write_file", Args: map[string]any{"file_path": filepath.Join(ws, "hello.txt"), "content": "hello world\n"}}}, Usage: Usage{Input: 100, CachedInput: 20, Output: 10}},
				{ToolCalls: []ToolCall{{Name: "run_shell_command", Args: map[string]any{"command": "cat hello.txt"}}}, Usage: Usage{Input: 200, CachedInput: 50, Output: 15}},
				{Text: "I wrote hello.txt and checked it.\n\n<promise>COMPLETE</promise>", Usage: Usage{Input: 300, CachedInput: 100, Output: 20}},
			}
		}},
		"tool-output-mentions-limits": {turns: fixed(
			Turn{ToolCalls: []ToolCall{{Name: "run_shell_command", Args: map[string]any{"command": "echo 'RESOURCE_EXHAUSTED: You exceeded your current quota. [API Error: 401 UNAUTHENTICATED]'; exit 3"}}}, Usage: Usage{Input: 100, Output: 10}},
			Turn{Text: "The command printed a quota message; nothing to do about it.", Usage: Usage{Input: 150, Output: 12}},
		)},
		"error-500":            {turns: fixed(Turn{Status: 500})},
		"error-401":            {turns: fixed(Turn{Status: 401})},
		"error-400-api-key":    {turns: fixed(Turn{Status: 400})},
		"error-403":            {turns: fixed(Turn{Status: 403})},
		"error-404-model":      {turns: fixed(Turn{Status: 404})},
		"error-503-overloaded": {turns: fixed(Turn{Status: 503})},
		"quota-daily":          {turns: fixed(Turn{Status: 429})},
		"quota-retry":          {turns: fixed(Turn{Status: 429, ErrorBody: GeminiQuotaBody("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "37s")})},
		"quota-plain":          {turns: fixed(Turn{Status: 429, ErrorBody: `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`})},
		"no-api-key":           {turns: fixed(Turn{Text: "hi"}), noKey: true},
		"network-down":         {turns: fixed(Turn{Text: "hi"}), url: "http://127.0.0.1:9"},
	}
	var wg sync.WaitGroup
	for name, c := range cases {
		ws := t.TempDir()
		s := Gemini(t, Sequence(c.turns(ws)...))
		home := t.TempDir()
		os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
		os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(GeminiSettings()), 0o644)
		url := s.URL
		if c.url != "" {
			url = c.url
		}
		env := []string{"HOME=" + home, "GOOGLE_GEMINI_BASE_URL=" + url, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + t.TempDir()}
		if !c.noKey {
			env = append(env, "GEMINI_API_KEY=stub-key")
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			stdout, stderr, code := runGemini(env, ws)
			os.WriteFile(filepath.Join(out, name+".jsonl"), stdout, 0o644)
			os.WriteFile(filepath.Join(out, name+".stderr"), stderr, 0o644)
			os.WriteFile(filepath.Join(out, name+".exit"), []byte(fmt.Sprintln(code)), 0o644)
		}()
	}
	wg.Wait()
}

func runGemini(env []string, dir string) ([]byte, []byte, int) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/work/main/.cache/agents/node_modules/.bin/gemini", "-m", "gemini-2.5-pro", "--output-format", "stream-json", "--yolo")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader("Write hello.txt, then say <promise>COMPLETE</promise>.")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	return out.Bytes(), errb.Bytes(), code
}
