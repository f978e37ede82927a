package broker

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
)

// upstream is a provider double: it records what each request carried.
type upstream struct {
	mu   sync.Mutex
	seen []*http.Request
	srv  *httptest.Server
}

func newUpstream(t *testing.T, tls bool, h http.HandlerFunc) *upstream {
	u := &upstream{}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.seen = append(u.seen, r.Clone(r.Context()))
		u.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	if tls {
		u.srv = httptest.NewTLSServer(handler)
	} else {
		u.srv = httptest.NewServer(handler)
	}
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) requests() []*http.Request {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]*http.Request(nil), u.seen...)
}

func start(t *testing.T, r Route, up *upstream) *Broker {
	t.Helper()
	r.transport = up.srv.Client().Transport
	b, err := Start(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func envValue(env []string, k string) string { return lookup(env, k) }

// Each provider gets the real key in its own header, over TLS, and the
// made-up key never leaves the broker; the CLI's environment holds only
// the made-up key and the broker's URL.
func TestBrokerPutsTheRealKey(t *testing.T) {
	codexHome := t.TempDir()
	cases := []struct {
		name, agent string
		env         func(url string) []string
		send        func(req *http.Request, dummy string)
		path        string
		header      string
		want        string
	}{
		{"claude, x-api-key", "claude",
			func(u string) []string { return []string{"ANTHROPIC_API_KEY=sk-ant-real", "ANTHROPIC_BASE_URL=" + u} },
			func(r *http.Request, d string) { r.Header.Set("x-api-key", d) },
			"/v1/messages?beta=true", "X-Api-Key", "sk-ant-real"},
		{"claude, auth token", "claude",
			func(u string) []string { return []string{"ANTHROPIC_AUTH_TOKEN=tok-real", "ANTHROPIC_BASE_URL=" + u} },
			func(r *http.Request, d string) { r.Header.Set("Authorization", "Bearer "+d) },
			"/v1/messages", "Authorization", "Bearer tok-real"},
		{"gemini, header", "gemini",
			func(u string) []string { return []string{"GEMINI_API_KEY=AIza-real", "GOOGLE_GEMINI_BASE_URL=" + u} },
			func(r *http.Request, d string) { r.Header.Set("x-goog-api-key", d) },
			"/v1beta/models/m:streamGenerateContent?alt=sse", "X-Goog-Api-Key", "AIza-real"},
		{"gemini, query", "gemini",
			func(u string) []string { return []string{"GOOGLE_API_KEY=AIza-real2", "GOOGLE_GEMINI_BASE_URL=" + u} },
			func(r *http.Request, d string) { q := r.URL.Query(); q.Set("key", d); r.URL.RawQuery = q.Encode() },
			"/v1beta/models/m:generateContent", "X-Goog-Api-Key", "AIza-real2"},
		{"codex, its own provider", "codex",
			func(u string) []string {
				cfg := "model = \"gpt-5.5\"\nmodel_provider = \"stub\" # ours\n\n[model_providers.stub]\nbase_url = \"" + u + "/v1\"\nenv_key = \"STUB_API_KEY\"\n"
				if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
					t.Fatal(err)
				}
				return []string{"CODEX_HOME=" + codexHome, "STUB_API_KEY=sk-real"}
			},
			func(r *http.Request, d string) { r.Header.Set("Authorization", "Bearer "+d) },
			"/v1/responses", "Authorization", "Bearer sk-real"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			up := newUpstream(t, true, nil)
			r, err := Plan(c.agent, c.env(up.srv.URL))
			is.NoErr(err)
			b := start(t, r, up)
			cliEnv := b.Env()
			dummy := envValue(cliEnv, r.dummyVar)
			is.True(strings.HasPrefix(dummy, "architect-broker-"))
			is.True(!strings.Contains(strings.Join(append(cliEnv, b.Args()...), " "), "real")) // no real key for the CLI
			base := b.URL()
			if c.agent == "codex" {
				is.Equal(b.Args(), []string{"-c", `model_providers.stub.base_url="` + base + `"`})
				is.True(strings.HasSuffix(base, "/v1"))
				base = strings.TrimSuffix(base, "/v1")
			} else {
				is.Equal(envValue(cliEnv, r.baseVar), base)
			}
			req, err := http.NewRequest("POST", base+c.path, strings.NewReader(`{"stream":true}`))
			is.NoErr(err)
			c.send(req, dummy)
			resp, err := http.DefaultClient.Do(req)
			is.NoErr(err)
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			is.Equal(resp.StatusCode, 200)
			is.Equal(string(body), "ok")
			seen := up.requests()
			is.Equal(len(seen), 1)
			is.Equal(seen[0].Header.Get(c.header), c.want)
			is.Equal(seen[0].URL.Path, strings.Split(c.path, "?")[0])
			is.True(!strings.Contains(seen[0].URL.RawQuery, dummy))
			for k, vs := range seen[0].Header {
				for _, v := range vs {
					is.True(!strings.Contains(v, dummy)) // k
					_ = k
				}
			}
			is.Equal(b.Forwarded(), int64(1))
		})
	}
}

// A request without the run's key, or with another, never reaches the
// provider.
func TestBrokerRefusesOtherKeys(t *testing.T) {
	is := is.New(t)
	up := newUpstream(t, false, nil)
	r, err := Plan("claude", []string{"ANTHROPIC_API_KEY=sk-ant-real", "ANTHROPIC_BASE_URL=" + up.srv.URL})
	is.NoErr(err)
	b := start(t, r, up)
	for _, key := range []string{"", "sk-ant-real", "architect-broker-guess"} {
		req, _ := http.NewRequest("POST", b.URL()+"/v1/messages", strings.NewReader("{}"))
		if key != "" {
			req.Header.Set("x-api-key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		is.NoErr(err)
		_ = resp.Body.Close()
		is.Equal(resp.StatusCode, http.StatusUnauthorized)
	}
	is.Equal(len(up.requests()), 0)
	is.Equal(b.Refused(), int64(3))
}

// A streamed answer reaches the CLI event by event: the first event is
// read while the provider still holds the second back.
func TestBrokerStreams(t *testing.T) {
	is := is.New(t)
	release := make(chan struct{})
	up := newUpstream(t, true, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: message_start\ndata: {}\n\n")
		w.(http.Flusher).Flush()
		<-release
		_, _ = io.WriteString(w, "event: message_stop\ndata: {}\n\n")
	})
	r, err := Plan("claude", []string{"ANTHROPIC_API_KEY=sk-ant-real", "ANTHROPIC_BASE_URL=" + up.srv.URL})
	is.NoErr(err)
	b := start(t, r, up)
	req, _ := http.NewRequest("POST", b.URL()+"/v1/messages", strings.NewReader("{}"))
	req.Header.Set("x-api-key", envValue(b.Env(), "ANTHROPIC_API_KEY"))
	resp, err := http.DefaultClient.Do(req)
	is.NoErr(err)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	is.NoErr(err)
	is.Equal(line, "event: message_start\n") // before the provider sent the rest
	close(release)
	rest, err := io.ReadAll(br)
	is.NoErr(err)
	is.True(strings.Contains(string(rest), "message_stop"))
}

func TestPlan(t *testing.T) {
	home := t.TempDir()
	cases := []struct {
		agent    string
		env      []string
		err      error
		upstream string
	}{
		{"claude", []string{"ANTHROPIC_API_KEY=k"}, nil, "https://api.anthropic.com"},
		{"claude", []string{"HOME=" + home}, ErrNoKey, ""},
		{"gemini", []string{"GEMINI_API_KEY=k"}, nil, "https://generativelanguage.googleapis.com"},
		{"codex", []string{"HOME=" + home, "OPENAI_API_KEY=k"}, nil, "https://api.openai.com/v1"},
		{"codex", []string{"HOME=" + home}, ErrNoKey, ""},
		{"claude", []string{"CLAUDE_CODE_OAUTH_TOKEN=k"}, nil, "https://api.anthropic.com"},
		{"aider", []string{"OPENAI_API_KEY=k", "OPENAI_API_BASE=http://127.0.0.1:9/v1"}, nil, "http://127.0.0.1:9/v1"},
		{"aider", []string{"ANTHROPIC_API_KEY=k"}, ErrUnsupported, ""},
		{"command", []string{"ANTHROPIC_API_KEY=k"}, ErrUnsupported, ""},
	}
	for _, c := range cases {
		is := is.New(t)
		r, err := Plan(c.agent, c.env)
		is.Equal(err, c.err) // c.agent
		if err == nil {
			is.Equal(r.Upstream(), c.upstream)
			is.Equal(r.key, "k")
		}
	}
	// Codex's built-in provider: the CLI gets one of architect's instead.
	r, err := Plan("codex", []string{"HOME=" + home, "CODEX_API_KEY=k", "OPENAI_BASE_URL=http://127.0.0.1:9/v1"})
	is.New(t).NoErr(err)
	b, err := Start(r)
	is.New(t).NoErr(err)
	defer b.Close()
	is.New(t).Equal(b.Args(), []string{"-c", `model_provider="architect"`, "-c", `model_providers.architect.base_url="` + b.URL() + `"`,
		"-c", `model_providers.architect.name="OpenAI through architect's credential broker"`,
		"-c", `model_providers.architect.env_key="CODEX_API_KEY"`, "-c", `model_providers.architect.wire_api="responses"`})
	is.New(t).Equal(b.Env(), []string{"CODEX_API_KEY=" + b.dummy})
	_, err = Plan("claude", []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=ftp://x"})
	is.New(t).True(err != nil)
}

func TestStrip(t *testing.T) {
	is := is.New(t)
	env := []string{"PATH=/bin", "ANTHROPIC_API_KEY=a", "OPENAI_API_KEY=b", "STUB_API_KEY=c", "GITHUB_TOKEN=d"}
	is.Equal(Strip(env, nil, "STUB_API_KEY"), []string{"PATH=/bin", "GITHUB_TOKEN=d"})
	is.Equal(Strip(env, []string{"OPENAI_API_KEY"}), []string{"PATH=/bin", "OPENAI_API_KEY=b", "STUB_API_KEY=c", "GITHUB_TOKEN=d"})
}
