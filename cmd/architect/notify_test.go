//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
)

// The notifiers and the questions, through the real binary: each
// notifier posts its payload to a fake service on 127.0.0.1, a question
// is answered through a fake Telegram bot or `architect answer`, and an
// unanswered one stops or goes on as configured.

// botToken is the fake bot's token: it must appear nowhere architect
// writes or prints.
const botToken = "4242:AAtestTOKENvalue-never-shown"

// service is a fake of every notifier's service at once, by path.
type service struct {
	srv *httptest.Server
	mu  sync.Mutex
	got map[string][]string // path → the bodies posted (ntfy: "Title|Tags|Authorization|body")
	// reply, when set, is the Telegram reply getUpdates gives once a
	// question was sent: a reply to the message sent.
	reply string
	sent  bool // a Telegram message was sent
}

func newService(t *testing.T) *service {
	s := &service{got: map[string][]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		defer s.mu.Unlock()
		body := string(b)
		if strings.HasPrefix(r.URL.Path, "/ntfy/") {
			body = r.Header.Get("Title") + "|" + r.Header.Get("Tags") + "|" + r.Header.Get("Authorization") + "|" + body
		}
		switch {
		case strings.HasSuffix(r.URL.Path, "/sendMessage"):
			s.got[r.URL.Path] = append(s.got[r.URL.Path], body)
			s.sent = true
			fmt.Fprint(w, `{"ok":true,"result":{"message_id":900}}`)
		case strings.HasSuffix(r.URL.Path, "/getUpdates"):
			if !s.sent || s.reply == "" {
				fmt.Fprint(w, `{"ok":true,"result":[]}`)
				return
			}
			fmt.Fprintf(w, `{"ok":true,"result":[{"update_id":5,"message":{"message_id":901,"chat":{"id":55},"text":"a stray message"}},`+
				`{"update_id":6,"message":{"message_id":902,"chat":{"id":55},"text":%q,"reply_to_message":{"message_id":900}}}]}`, s.reply)
		default:
			s.got[r.URL.Path] = append(s.got[r.URL.Path], body)
			fmt.Fprint(w, "ok")
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *service) bodies(path string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got[path]...)
}

// writeYAML writes ralph.yaml beside the repository and returns its path.
func writeYAML(t *testing.T, repo, body string) string {
	t.Helper()
	path := filepath.Join(filepath.Dir(repo), "ralph.yaml")
	if err := os.WriteFile(path, []byte("ralph_loop:\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func serviceEnv(s *service) []string {
	return []string{
		"SLACK_HOOK=" + s.srv.URL + "/slack/T000/B000/XXXX",
		"NTFY_URL=" + s.srv.URL + "/ntfy/architect-topic",
		"NTFY_ACCESS=tk_ntfyaccess123",
		"HOOK_URL=" + s.srv.URL + "/hook",
		"TG_BOT=" + botToken,
	}
}

// noSecret fails when the bot token is in any file under .architect/ or
// in what architect printed.
func noSecret(t *testing.T, repo string, printed ...string) {
	t.Helper()
	for _, p := range printed {
		if strings.Contains(p, botToken) || strings.Contains(p, "4242:AA") {
			t.Fatalf("the bot token was printed:\n%s", p)
		}
	}
	err := filepath.WalkDir(filepath.Join(repo, ".architect"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), botToken) {
			t.Errorf("the bot token is in %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func jsonField(t *testing.T, s, key string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not JSON: %q", s)
	}
	return m[key]
}

// Every notifier posts its own payload for the events it takes.
func TestNotifiersPostTheirPayloads(t *testing.T) {
	is := is.New(t)
	s := newService(t)
	repo, agentDir := loopFixture(t, "say done <promise>COMPLETE</promise>\n")
	cfg := writeYAML(t, repo, `  notifiers:
    - {type: slack, url_env: SLACK_HOOK}
    - {type: ntfy, url_env: NTFY_URL, token_env: NTFY_ACCESS, events: [success, failure]}
    - {type: webhook, url_env: HOOK_URL, events: [started, success]}
    - {type: telegram, token_env: TG_BOT, chat_id: "55", api_url: "`+s.srv.URL+`", events: [success]}
`)
	stdout, stderr, code := architectEnv(t, agentDir, serviceEnv(s), "loop", "fix it", "-C", repo, "-c", cfg, "--check", "true", "--agent-cmd", "fake-agent")
	is.Equal(code, 0) // stderr in the failure below
	if code != 0 {
		t.Fatal(stderr)
	}

	slack := s.bodies("/slack/T000/B000/XXXX")
	is.Equal(len(slack), 2) // started and success
	is.Equal(jsonField(t, slack[0], "text"), "*architect: the loop started*\ntask: fix it")
	is.Equal(jsonField(t, slack[1], "text"), "*architect: success*\nall checks pass after 1 iteration\ntask: fix it")

	ntfy := s.bodies("/ntfy/architect-topic")
	is.Equal(ntfy, []string{"architect: success|success|Bearer tk_ntfyaccess123|all checks pass after 1 iteration\ntask: fix it"})

	hook := s.bodies("/hook")
	is.Equal(len(hook), 2)
	is.Equal(jsonField(t, hook[0], "event"), "started")
	is.Equal(jsonField(t, hook[1], "event"), "success")
	is.Equal(jsonField(t, hook[1], "stop_reason"), "all_checks_passed")
	is.Equal(jsonField(t, hook[1], "iteration"), 1.0)
	ws, _ := filepath.EvalSymlinks(repo)
	is.True(jsonField(t, hook[1], "workspace") == repo || jsonField(t, hook[1], "workspace") == ws)

	tg := s.bodies("/bot" + botToken + "/sendMessage")
	is.Equal(len(tg), 1)
	is.Equal(jsonField(t, tg[0], "chat_id"), "55")
	is.Equal(jsonField(t, tg[0], "text"), "architect: success\n\nall checks pass after 1 iteration\ntask: fix it")
	noSecret(t, repo, stdout, stderr)
}

// A notifier whose service is down is a warning; the run succeeds.
func TestNotifierDownOnlyWarns(t *testing.T) {
	is := is.New(t)
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL
	down.Close()
	repo, agentDir := loopFixture(t, "say done <promise>COMPLETE</promise>\n")
	cfg := writeYAML(t, repo, `  notifiers: [{type: telegram, token_env: TG_BOT, chat_id: "55", api_url: "`+url+`"}]
`)
	stdout, stderr, code := architectEnv(t, agentDir, []string{"TG_BOT=" + botToken}, "loop", "fix it", "-C", repo, "-c", cfg, "--check", "true", "--agent-cmd", "fake-agent")
	is.Equal(code, 0)
	is.True(strings.Contains(stderr, "architect: warning: notifiers: posting the started message to telegram failed"))
	is.True(strings.Contains(stderr, "the loop goes on"))
	noSecret(t, repo, stdout, stderr)
}

// A variable a notifier names that is not set is a configuration error.
func TestNotifierSecretMissing(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "say done <promise>COMPLETE</promise>\n")
	cfg := writeYAML(t, repo, "  notifiers: [{type: slack, url_env: NOT_SET_ANYWHERE}]\n")
	_, stderr, code := architect(t, agentDir, "loop", "fix it", "-C", repo, "-c", cfg, "--check", "true", "--agent-cmd", "fake-agent")
	is.Equal(code, 2)
	is.True(strings.Contains(stderr, "architect: error: notifiers: not set in the environment: NOT_SET_ANYWHERE (slack)"))
	is.True(strings.Contains(stderr, "architect: hint: "))
}

// questionFixture is a run whose first agent asks (script ask), whose
// second copies its prompt into the workspace and completes.
func questionFixture(t *testing.T, ask string) (repo, agentDir string) {
	repo, agentDir = loopFixture(t, "say done <promise>COMPLETE</promise>\n")
	for name, script := range map[string]string{
		"iter-1.txt": ask,
		"iter-2.txt": "prompt prompt-2.md\nsay done <promise>COMPLETE</promise>\n",
	} {
		if err := os.WriteFile(filepath.Join(agentDir, name), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo, agentDir
}

type resultJSON struct {
	StopReason string `json:"stop_reason"`
	Iterations []struct {
		Question string `json:"question"`
		Answer   string `json:"answer"`
	} `json:"iterations"`
}

func readResult(t *testing.T, repo string) resultJSON {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, ".architect", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r resultJSON
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A command agent's question (the tag) goes to Telegram; the reply to its
// message answers it, and the next prompt carries the answer.
func TestQuestionAnsweredThroughTelegram(t *testing.T) {
	is := is.New(t)
	s := newService(t)
	s.reply = "Use PostgreSQL 16"
	// The agent prints the bot token it finds in its environment: masked
	// (the notifier names its variable) wherever architect writes it.
	repo, agentDir := questionFixture(t, "sh echo \"env: $TG_BOT\"\nsay I need a decision. <question>Which database should I use?</question>\n")
	cfg := writeYAML(t, repo, `  questions: on
  notifiers: [{type: telegram, token_env: TG_BOT, chat_id: "55", api_url: "`+s.srv.URL+`", events: [question]}]
`)
	stdout, stderr, code := architectEnv(t, agentDir, []string{"TG_BOT=" + botToken}, "loop", "fix it", "-C", repo, "-c", cfg, "--check", "true", "--agent-cmd", "fake-agent")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	sent := s.bodies("/bot" + botToken + "/sendMessage")
	is.Equal(len(sent), 1)
	is.True(strings.Contains(jsonField(t, sent[0], "text").(string), "Which database should I use?"))
	p := readFile(t, filepath.Join(repo, "prompt-2.md"))
	is.True(strings.Contains(p, "## Answer to the Question Asked"))
	is.True(strings.Contains(p, "```text\nWhich database should I use?\n```"))
	is.True(strings.Contains(p, "```text\nUse PostgreSQL 16\n```"))
	is.True(!strings.Contains(p, "a stray message"))
	res := readResult(t, repo)
	is.Equal(res.StopReason, "all_checks_passed")
	is.Equal(len(res.Iterations), 2)
	is.Equal(res.Iterations[0].Question, "Which database should I use?")
	is.Equal(res.Iterations[1].Answer, "Use PostgreSQL 16")
	is.True(strings.Contains(stderr, "answer received (telegram)"))
	show1, _, code := architect(t, agentDir, "show", "1", "-C", repo)
	is.Equal(code, 0)
	is.True(strings.Contains(show1, "question asked: Which database should I use?"))
	show2, _, _ := architect(t, agentDir, "show", "2", "-C", repo)
	is.True(strings.Contains(show2, "answer carried by its prompt: Use PostgreSQL 16"))
	html := readFile(t, filepath.Join(repo, ".architect", "report.html"))
	is.True(strings.Contains(html, "Question asked"))
	is.True(strings.Contains(html, "Use PostgreSQL 16"))
	noSecret(t, repo, stdout, stderr)
}

// A question in the file, answered with `architect answer` from another
// terminal while the loop waits.
func TestQuestionAnsweredFromOutside(t *testing.T) {
	is := is.New(t)
	repo, agentDir := questionFixture(t, "write .architect/question.md Which port should the server listen on?\nsay asked\n")
	_, stderr, code := architect(t, agentDir, "answer", "-C", repo, "8080")
	is.Equal(code, 2) // no run, no question
	is.True(strings.Contains(stderr, "architect: error: "))
	p := startLoop(t, agentDir, "loop", "fix it", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent", "--questions", "on")
	p.waitOutput(t, "the agent asks")
	waitContains(t, filepath.Join(repo, ".architect", "state.json"), `"status": "waiting"`)
	status, _, _ := architect(t, agentDir, "status", "-C", repo)
	is.True(strings.Contains(status, "Question (iteration 1): Which port should the server listen on?"))
	stdout, stderr, code := architect(t, agentDir, "answer", "-C", repo, "8080, as in the README")
	is.Equal(code, 0)
	is.True(strings.Contains(stdout, "answer sent to the loop"))
	is.Equal(p.exit(t, waitLimit), 0)
	prompt := readFile(t, filepath.Join(repo, "prompt-2.md"))
	is.True(strings.Contains(prompt, "```text\nWhich port should the server listen on?\n```"))
	is.True(strings.Contains(prompt, "```text\n8080, as in the README\n```"))
	res := readResult(t, repo)
	is.Equal(res.Iterations[0].Question, "Which port should the server listen on?")
	is.Equal(res.Iterations[1].Answer, "8080, as in the README")
	_ = stderr
}

// Unanswered in time: stop (resumable; an answer given meanwhile reaches
// the resumed run's prompt), or continue (the next prompt says no answer
// came).
func TestQuestionUnanswered(t *testing.T) {
	t.Run("stop", func(t *testing.T) {
		is := is.New(t)
		repo, agentDir := questionFixture(t, "say <question>Keep the old API?</question>\n")
		_, stderr, code := architect(t, agentDir, "loop", "fix it", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent",
			"--questions", "on", "--question-timeout", "1s", "--on-question-timeout", "stop")
		is.Equal(code, 1)
		is.True(strings.Contains(stderr, "no answer to the question of iteration 1 within 1s"))
		is.Equal(readResult(t, repo).StopReason, "question_unanswered")
		is.True(strings.Contains(readFile(t, filepath.Join(repo, ".architect", "state.json")), `"status": "waiting"`))
		stdout, stderr, code := architect(t, agentDir, "answer", "-C", repo, "yes, keep it")
		is.Equal(code, 0)
		is.True(strings.Contains(stdout, "answer saved"))
		is.True(strings.Contains(stderr, "no loop is running"))
		_, stderr, code = architect(t, agentDir, "loop", "--resume", "-C", repo)
		if code != 0 {
			t.Fatalf("resume: exit %d\n%s", code, stderr)
		}
		is.True(strings.Contains(readFile(t, filepath.Join(repo, "prompt-2.md")), "```text\nyes, keep it\n```"))
	})
	t.Run("continue", func(t *testing.T) {
		is := is.New(t)
		repo, agentDir := questionFixture(t, "say <question>Keep the old API?</question>\n")
		_, stderr, code := architect(t, agentDir, "loop", "fix it", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent",
			"--questions", "on", "--question-timeout", "1s", "--on-question-timeout", "continue")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		p := readFile(t, filepath.Join(repo, "prompt-2.md"))
		is.True(strings.Contains(p, "```text\nKeep the old API?\n```"))
		is.True(strings.Contains(p, "No answer came in time."))
		res := readResult(t, repo)
		is.Equal(res.Iterations[1].Answer, "(no answer)")
	})
}

// A question from an iteration that succeeded is recorded, and the run
// ends with its success: nothing waits.
func TestQuestionWithSuccessEnds(t *testing.T) {
	is := is.New(t)
	repo, agentDir := questionFixture(t, "say <question>Anything else?</question> done <promise>COMPLETE</promise>\n")
	_, stderr, code := architect(t, agentDir, "loop", "fix it", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent", "--questions", "on")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	res := readResult(t, repo)
	is.Equal(len(res.Iterations), 1)
	is.Equal(res.Iterations[0].Question, "Anything else?")
	is.True(!strings.Contains(stderr, "the agent asks"))
}

// With questions off (the default), a tag is only text: no wait.
func TestQuestionsOffByDefault(t *testing.T) {
	is := is.New(t)
	repo, agentDir := questionFixture(t, "say <question>Which one?</question>\n")
	_, stderr, code := architect(t, agentDir, "loop", "fix it", "-C", repo, "--check", "true", "--agent-cmd", "fake-agent")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	res := readResult(t, repo)
	is.Equal(len(res.Iterations), 2)
	is.Equal(res.Iterations[0].Question, "")
	is.True(!strings.Contains(readFile(t, filepath.Join(repo, "prompt-2.md")), ".architect/question.md"))
}
