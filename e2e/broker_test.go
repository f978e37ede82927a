//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/internal/agentbin"
	"github.com/architect-dev/architect/internal/stubmodel"
)

// The credential broker with the real CLIs, confined (--sandbox workspace;
// the wrapper's records are the one folder outside granted to it): each
// completes its stub-model loop while its environment (its
// /proc/self/environ, recorded by a wrapper that then execs the CLI) holds
// a made-up key and no real one, architect's own /proc environ shows none
// either, the checks get none, and the stub model receives the real key,
// in the provider's header, on every request.

// brokerWrapper is an agent-bin that records the CLI's environment and
// its parent's (architect's) in dir, then runs the real CLI.
func brokerWrapper(t *testing.T, name string) (bin, dir string) {
	t.Helper()
	realBin := agentbin.Path(t, name)
	dir = t.TempDir()
	bin = filepath.Join(dir, name)
	script := "#!/bin/sh\n" +
		"tr '\\0' '\\n' < /proc/self/environ >> " + dir + "/environ\n" +
		"{ tr '\\0' '\\n' < /proc/$PPID/environ; } >> " + dir + "/parent 2>&1\n" +
		"exec " + realBin + " \"$@\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, dir
}

// keptFromAgent checks what the wrapper in dir recorded: the CLI had
// keyVar set to a made-up key, and the real key was nowhere.
func keptFromAgent(t *testing.T, dir, keyVar, realKey string) {
	t.Helper()
	is := is.New(t)
	environ := ReadFile(t, filepath.Join(dir, "environ"))
	is.True(strings.Contains(environ, keyVar+"=architect-broker-")) // the made-up key
	is.True(!strings.Contains(environ, realKey))                    // no real key in the CLI's environment
	parent := ReadFile(t, filepath.Join(dir, "parent"))
	is.True(parent != "")
	is.True(!strings.Contains(parent, realKey)) // nor in architect's
}

// upstreamGotRealKey checks that every generation request srv received
// carried the real key in header, and none the made-up one.
func upstreamGotRealKey(t *testing.T, srv *stubmodel.Server, header, want string) {
	t.Helper()
	is := is.New(t)
	n := 0
	for _, r := range srv.Requests() {
		if r.Method != "POST" {
			continue
		}
		n++
		is.Equal(r.Header.Get(header), want) // r.Path
		for _, vs := range r.Header {
			is.True(!strings.Contains(strings.Join(vs, " "), "architect-broker-"))
		}
		is.True(!strings.Contains(r.Path, "architect-broker-"))
	}
	is.True(n > 0)
}

func TestBrokerClaude(t *testing.T) {
	t.Parallel()
	bin, rec := brokerWrapper(t, "claude")
	r, dir, srv, script, res := claudeLoopWith(t, nil, []string{"--agent-bin", bin, "--sandbox", "workspace", "--sandbox-write", rec, "--check", "! env | grep -q sk-ant-stub"}, nil,
		claudeRun{File: "calc.go", Content: wrongFix, Final: "I changed Add; it should work now."},
		claudeRun{File: "calc.go", Content: rightFix, Final: "Add adds now. <promise>COMPLETE</promise>"},
	)
	var prompts []string
	for _, r := range script.runStarts(srv) {
		prompts = append(prompts, string(r.Body))
	}
	fixedInTwo(t, res, dir, rightFix, 3, prompts)
	is.New(t).True(strings.Contains(res.Stderr, "credential broker: the claude agent reaches"))
	keptFromAgent(t, rec, "ANTHROPIC_API_KEY", "sk-ant-stub")
	upstreamGotRealKey(t, srv, "X-Api-Key", "sk-ant-stub")
	r.NoLeftovers(dir)
}

func TestBrokerCodex(t *testing.T) {
	t.Parallel()
	bin, rec := brokerWrapper(t, "codex")
	r, dir, srv, script, res := codexLoop(t, []string{"--agent-bin", bin, "--sandbox", "workspace", "--sandbox-write", rec, "--check", "! env | grep -q sk-stub"},
		tokenRun{Call: codexPatch("-", "*"), Final: "I changed Add; it should work now."},
		tokenRun{Call: codexPatch("*", "+"), Final: "Add adds now. <promise>COMPLETE</promise>"},
	)
	fixedInTwo(t, res, dir, calcSource("+"), 1, script.runStarts(srv))
	keptFromAgent(t, rec, "STUB_API_KEY", "sk-stub")
	upstreamGotRealKey(t, srv, "Authorization", "Bearer sk-stub")
	r.NoLeftovers(dir)
}

func TestBrokerGemini(t *testing.T) {
	t.Parallel()
	bin, rec := brokerWrapper(t, "gemini")
	r, dir, srv, script, res := geminiLoop(t, []string{"--agent-bin", bin, "--sandbox", "workspace", "--sandbox-write", rec, "--check", "! env | grep -q stub-key"}, func(dir string) []tokenRun {
		return []tokenRun{
			{Call: geminiWrite(dir, "*"), Final: "I changed Add; it should work now."},
			{Call: geminiWrite(dir, "+"), Final: "Add adds now. <promise>COMPLETE</promise>"},
		}
	})
	fixedInTwo(t, res, dir, calcSource("+"), 1, script.runStarts(srv))
	keptFromAgent(t, rec, "GEMINI_API_KEY", "stub-key")
	upstreamGotRealKey(t, srv, "X-Goog-Api-Key", "stub-key")
	r.NoLeftovers(dir)
}

// Codex with its built-in OpenAI provider (no model_provider in its
// configuration, the key in OPENAI_API_KEY): the CLI is given a provider
// of architect's that reaches the broker; the upstream is OPENAI_BASE_URL
// (the stub here; api.openai.com by default).
func TestBrokerCodexBuiltinProvider(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	bin, rec := brokerWrapper(t, "codex")
	r := NewRun(t)
	dir := Fixture(t, "failing-go-test")
	script := &tokenScript{runs: []tokenRun{{Call: codexPatch("-", "+"), Final: "Add adds now. <promise>COMPLETE</promise>"}}, toolOutputs: codexToolOutputs}
	srv := stubmodel.OpenAI(t, stubmodel.Responder(script.respond))
	home := filepath.Join(r.Home, ".codex")
	is.NoErr(os.MkdirAll(home, 0o755))
	cfg := strings.Replace(srv.CodexConfig("gpt-5.5"), `model_provider = "stub"`, "", 1)
	is.NoErr(os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644))
	r.Env = append(r.Env, "CODEX_HOME="+home, "OPENAI_API_KEY=sk-stub", "OPENAI_BASE_URL="+srv.URL+"/v1", "TZ=UTC")
	res := r.Architect(dir, 3*time.Minute, "loop", "make go test pass", "--agent", "codex", "--agent-bin", bin, "--sandbox", "workspace", "--sandbox-write", rec, "--model", "gpt-5.5",
		"--check", "go test ./...", "--check", "! env | grep -q sk-stub", "--max-iterations", "2", "--json", "-C", dir)
	succeeded(t, res, 1)
	keptFromAgent(t, rec, "OPENAI_API_KEY", "sk-stub")
	upstreamGotRealKey(t, srv, "Authorization", "Bearer sk-stub")
	r.NoLeftovers(dir)
}
