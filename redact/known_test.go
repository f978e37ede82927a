package redact

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// token is a credential-shaped string: prefix then n characters drawn
// from alphabet, the same for the same seed.
func token(seed uint64, prefix string, n int, alphabet string) string {
	r := rand.New(rand.NewPCG(seed, 7))
	b := []byte(prefix)
	for range n {
		b = append(b, alphabet[r.IntN(len(alphabet))])
	}
	return string(b)
}

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upper2 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	hex    = "0123456789abcdef"
)

// Fake credentials of the formats the issue names, built at run time.
var (
	ghToken        = token(1, "ghp_", 36, alnum)
	ghFine         = token(2, "github_pat_", 82, alnum+"_")
	anthropicKey   = token(3, "sk-ant-api03-", 93, alnum+"_-") + "AA"
	openaiKey      = token(4, "sk-proj-", 74, alnum) + "T3BlbkFJ" + token(5, "", 74, alnum)
	awsKeyID       = token(6, "AKIA", 16, upper2)
	slackBot       = "xoxb-" + token(7, "", 12, "0123456789") + "-" + token(8, "", 12, "0123456789") + "-" + token(9, "", 24, alnum)
	gcpKey         = token(10, "AIza", 35, alnum+"_-")
	urlPassword1   = token(11, "", 16, alnum)
	privateKeyBody = func() string {
		var b strings.Builder
		for i := range 6 {
			b.WriteString(token(uint64(20+i), "", 64, alnum+"+/") + "\n")
		}
		return b.String()
	}()
	privateKey = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + privateKeyBody + "-----END OPENSSH PRIVATE KEY-----\n"
)

func TestKnownMasked(t *testing.T) {
	r := (&Redactor{}).WithKnown()
	cases := []struct {
		name, in, want string
	}{
		{"github", "export GH=" + ghToken + " # mine", "export GH=*** # mine"},
		{"github fine-grained", `{"token":"` + ghFine + `"}`, `{"token":"***"}`},
		{"anthropic", "key " + anthropicKey + "\n", "key ***\n"},
		{"openai", "OPENAI_API_KEY='" + openaiKey + "'", "OPENAI_API_KEY='***'"},
		{"aws", "id=" + awsKeyID + ";", "id=***;"},
		{"slack", "bot " + slackBot, "bot ***"},
		{"gcp", "?key=" + gcpKey + " ", "?key=*** "},
		{"url password", "git clone https://me:" + urlPassword1 + "@github.com/o/r.git", "git clone https://me:***@github.com/o/r.git"},
		{"url password, postgres", "DSN postgres://app:" + urlPassword1 + "@db:5432/x", "DSN postgres://app:***@db:5432/x"},
		{"private key block", "key:\n" + privateKey + "done", "key:\n***\ndone"},
		{"two on a line", ghToken + " " + awsKeyID, "*** ***"},
		// Not credentials: left as they are.
		{"low entropy", "ghp_" + strings.Repeat("x", 36), "ghp_" + strings.Repeat("x", 36)},
		{"code", "func (s *Server) ServeHTTP(w http.ResponseWriter) { s.mu.Lock() }", "func (s *Server) ServeHTTP(w http.ResponseWriter) { s.mu.Lock() }"},
		{"url without password", "see https://github.com/o/r and ssh://git@host:22/x", "see https://github.com/o/r and ssh://git@host:22/x"},
		{"mask kept", "https://me:***@github.com", "https://me:***@github.com"},
		{"empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(r.String(c.in), c.want)
		})
	}
}

func TestKnownOnlyWhenAsked(t *testing.T) {
	is := is.New(t)
	r, err := New(nil, nil)
	is.NoErr(err)
	is.Equal(r.String(ghToken), ghToken) // New alone masks no known format
	is.True(r.Empty())
	r = r.WithKnown()
	is.True(!r.Empty())
	is.Equal(r.String(ghToken), Mask)
	var nilR *Redactor
	is.Equal(nilR.WithKnown().String("a "+anthropicKey+" b"), "a *** b")
}

func TestLinesKeyBlockEnds(t *testing.T) {
	is := is.New(t)
	lines := Lines(func(s string) string { return s })
	// A marker printed alone, then ordinary text: the text is shown.
	is.Equal(lines("grep '-----BEGIN RSA PRIVATE KEY-----' found nothing\n"), "grep '***\n")
	is.Equal(lines("next: ordinary text\n"), "next: ordinary text\n")
	// A block ends at its end marker; what follows it on the line is kept.
	is.Equal(lines("-----BEGIN EC PRIVATE KEY-----\n"), "***\n")
	is.Equal(lines("Proc-Type: 4,ENCRYPTED\n"), "***\n")
	is.Equal(lines("MHcCAQEEIBkg\n"), "***\n")
	is.Equal(lines("-----END EC PRIVATE KEY----- ok\n"), "*** ok\n")
	is.Equal(lines("after\n"), "after\n")
}

// agentOutput is about 1 MB of what an agent prints: its JSON stream,
// with code, shell output and URLs, and one token every 1,000 lines.
func agentOutput() []string {
	var lines []string
	size := 0
	for i := 0; size < 1<<20; i++ {
		var l string
		switch i % 4 {
		case 0:
			l = `{"type":"assistant","message":{"content":[{"type":"text","text":"I will fix the handler in server.go: the key lookup returns early when the token is empty, see https://github.com/org/repo/issues/12"}]}}` + "\n"
		case 1:
			l = `{"type":"user","message":{"content":[{"type":"tool_result","content":"ok  \tgithub.com/org/repo/server\t0.412s\n--- FAIL: TestLogin (0.00s)\n    login_test.go:42: got 401, want 200"}]}}` + "\n"
		case 2:
			l = `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Edit","input":{"file_path":"/work/repo/server.go","old_string":"if key == \"\" {\n\treturn nil, errNoKey\n}","new_string":"if key == \"\" && s.cfg.AllowAnonymous == false {\n\treturn nil, errNoKey\n}"}}]}}` + "\n"
		default:
			l = "2026-11-28T02:46:12Z INFO request id=7f3a9c2e method=POST path=/v1/sessions status=200 duration=12.4ms user_agent=\"Mozilla/5.0\"\n"
		}
		if i%1000 == 999 {
			l = "export GITHUB_TOKEN=" + ghToken + "\n"
		}
		lines = append(lines, l)
		size += len(l)
	}
	return lines
}

// BenchmarkKnownPerMB is the cost of masking the known formats in a
// megabyte of agent output, a line at a time as transcripts are.
func BenchmarkKnownPerMB(b *testing.B) {
	lines := agentOutput()
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	for _, c := range []struct {
		name string
		r    *Redactor
	}{{"known", (&Redactor{}).WithKnown()}, {"named only", mustNew(b)}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, l := range lines {
					_ = c.r.String(l)
				}
			}
		})
	}
}

func mustNew(b *testing.B) *Redactor {
	r, err := New([]string{"GITHUB_TOKEN=" + ghToken}, []string{`AKIA[0-9A-Z]{16}`})
	if err != nil {
		b.Fatal(err)
	}
	return r
}
