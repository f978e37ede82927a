package stubmodel

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Temporary: captures real CLI output into agent/testdata. Deleted after use.
func TestCaptureCodex(t *testing.T) {
	if os.Getenv("CAPTURE") == "" {
		t.Skip()
	}
	out := "/work/main/agent/testdata/codex"
	os.MkdirAll(out, 0o755)
	patch := "*** Begin Patch\n*** Add File: hello.txt\n+hello world\n*** End Patch\n"
	cases := map[string][]Turn{
		"success": {
			{ToolCalls: []ToolCall{{Name: "apply_patch", Input: patch}}, Usage: Usage{Input: 100, CachedInput: 20, Output: 10}},
			{ToolCalls: []ToolCall{{Name: "exec_command", Args: map[string]any{"cmd": "cat hello.txt"}}}, Usage: Usage{Input: 200, CachedInput: 50, Output: 15}},
			{Text: "I wrote hello.txt.\n\n<promise>COMPLETE</promise>", Usage: Usage{Input: 300, CachedInput: 100, Output: 20}},
		},
		"tool-output-mentions-limits": {
			{ToolCalls: []ToolCall{{Name: "exec_command", Args: map[string]any{"cmd": "echo \"You've hit your usage limit. Try again at 5:46 PM. unexpected status 401 Unauthorized insufficient_quota\"; exit 3"}}}, Usage: Usage{Input: 100, Output: 10}},
			{Text: "The test printed a quota message; nothing to do about it.", Usage: Usage{Input: 150, Output: 12}},
		},
		"error-500":             {{Status: 500}},
		"error-401":             {{Status: 401}},
		"error-403":             {{Status: 403}},
		"error-404-model":       {{Status: 404}},
		"error-503-overloaded":  {{Status: 503}},
		"error-400-model":       {{Status: 400, ErrorBody: `{"error":{"message":"The 'gpt-foo' model is not supported when using Codex with a ChatGPT account.","type":"invalid_request_error","param":"model","code":null}}`}},
		"quota-exceeded":        {{Status: 429}},
		"usage-limit-reset":     {{Status: 429, ErrorBody: OpenAIUsageLimitBody(1900000000)}},
		"usage-limit":           {{Status: 429, ErrorBody: OpenAIUsageLimitBody(0)}},
		"usage-not-included":    {{Status: 429, ErrorBody: `{"error":{"type":"usage_not_included","message":"usage not included"}}`}},
		"rate-limit-429":        {{Status: 429, ErrorBody: `{"error":{"message":"Rate limit reached for gpt-5.5 on tokens per min (TPM). Please try again in 2.5s.","type":"tokens","code":"rate_limit_exceeded"}}`}},
	}
	for name, turns := range cases {
		s := OpenAI(t, Sequence(turns...))
		ws := t.TempDir()
		home := t.TempDir()
		codexHome := filepath.Join(home, ".codex")
		os.MkdirAll(codexHome, 0o755)
		os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(s.CodexConfig("gpt-5.5")), 0o644)
		env := []string{"HOME=" + home, "CODEX_HOME=" + codexHome, "STUB_API_KEY=sk-stub", "PATH=" + os.Getenv("PATH"), "TZ=UTC"}
		stdout := run(t, env, ws, "")
		os.WriteFile(filepath.Join(out, name+".jsonl"), stdout, 0o644)
	}
	// Missing API key variable.
	s := OpenAI(t, Sequence(Turn{Text: "hi"}))
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	os.MkdirAll(codexHome, 0o755)
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(s.CodexConfig("gpt-5.5")), 0o644)
	os.WriteFile(filepath.Join(out, "missing-env-key.jsonl"), run(t, []string{"HOME=" + home, "CODEX_HOME=" + codexHome, "PATH=" + os.Getenv("PATH")}, t.TempDir(), ""), 0o644)
	// Connection refused: Codex waits for the network; stopped after 20 s.
	cfg := strings.Replace(s.CodexConfig("gpt-5.5"), s.URL, "http://127.0.0.1:9", 1)
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o644)
	os.WriteFile(filepath.Join(out, "network-down.jsonl"), run(t, []string{"HOME=" + home, "CODEX_HOME=" + codexHome, "STUB_API_KEY=x", "PATH=" + os.Getenv("PATH")}, t.TempDir(), "20s"), 0o644)
}

func run(t *testing.T, env []string, dir, timeout string) []byte {
	ctx := context.Background()
	if timeout != "" {
		d, _ := time.ParseDuration(timeout)
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "/work/main/.cache/agents/node_modules/.bin/codex", "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "-m", "gpt-5.5", "-")
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader("Write hello.txt, then say <promise>COMPLETE</promise>.")
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	t.Logf("%v", err)
	return out.Bytes()
}
