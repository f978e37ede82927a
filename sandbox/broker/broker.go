// Package broker keeps a model API key out of the agent's reach. For a
// run, architect serves a loopback endpoint and points the agent's CLI at
// it through the CLI's own base-URL setting, with a key made up for the
// run; the broker accepts a request only with that key, puts the real key
// in its place (in the header the provider reads) and forwards it to the
// provider, streaming the answer back as it comes. The real key stays in
// architect's process: the agent's environment, files and arguments never
// hold it, and neither do the checks' and hooks' (see Strip).
package broker

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// ModelKeys are the variables that hold a model provider's API key: the
// agents', the checks' and the hooks' environments lose them while a
// broker runs (a Codex provider's env_key is added by its Route).
var ModelKeys = []string{
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
	"OPENAI_API_KEY", "CODEX_API_KEY", "AZURE_OPENAI_API_KEY", "OPENROUTER_API_KEY",
	"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY",
	"MISTRAL_API_KEY", "DEEPSEEK_API_KEY", "GROQ_API_KEY", "XAI_API_KEY",
	"AMP_API_KEY", "CURSOR_API_KEY",
}

// Header names a key goes in.
const (
	headerAnthropic = "X-Api-Key"
	headerBearer    = "Authorization"
	headerGoogle    = "X-Goog-Api-Key"
)

// Route is how one agent's requests reach its provider through a broker.
type Route struct {
	Agent    string
	KeyVar   string // the variable that held the real key
	key      string
	header   string   // the header the provider reads the key from
	upstream *url.URL // the provider's base URL
	baseVar  string   // the variable that points the CLI at a base URL ("": an argument does)
	dummyVar string   // the variable the CLI reads its key from
	provider string   // Codex: the model_providers entry the CLI uses
	builtin  bool     // Codex: provider is architect's, in place of the built-in OpenAI one
	// transport reaches the upstream; nil: Go's default (TLS with the
	// system's roots, HTTPS_PROXY followed).
	transport http.RoundTripper
}

// Upstream is where the route's requests go.
func (r Route) Upstream() string { return r.upstream.String() }

// ErrUnsupported: architect cannot point this agent's CLI at a broker.
var ErrUnsupported = errors.New("architect cannot point this agent's CLI at its credential broker")

// ErrNoKey: the environment holds no API key for this agent (it logs in
// with its own files, or is given no key): there is nothing to broker.
var ErrNoKey = errors.New("no API key for this agent in the environment")

// Plan finds, in env (KEY=VALUE), the key and the provider of the agent
// named agentName.
func Plan(agentName string, env []string) (Route, error) {
	r, err := plan(agentName, env)
	if err != nil {
		return Route{}, err
	}
	r.key = lookup(env, r.KeyVar)
	return r, nil
}

func plan(agentName string, env []string) (Route, error) {
	get := func(k string) string { return lookup(env, k) }
	switch agentName {
	case "claude":
		r := Route{Agent: agentName, baseVar: "ANTHROPIC_BASE_URL"}
		switch {
		case get("ANTHROPIC_API_KEY") != "":
			r.KeyVar, r.header = "ANTHROPIC_API_KEY", headerAnthropic
		case get("ANTHROPIC_AUTH_TOKEN") != "":
			r.KeyVar, r.header = "ANTHROPIC_AUTH_TOKEN", headerBearer
		case get("CLAUDE_CODE_OAUTH_TOKEN") != "": // a subscription's token
			r.KeyVar, r.header = "CLAUDE_CODE_OAUTH_TOKEN", headerBearer
		default:
			return Route{}, ErrNoKey
		}
		r.dummyVar = r.KeyVar
		return r.withUpstream(get("ANTHROPIC_BASE_URL"), "https://api.anthropic.com")
	case "gemini":
		r := Route{Agent: agentName, baseVar: "GOOGLE_GEMINI_BASE_URL", dummyVar: "GEMINI_API_KEY", header: headerGoogle}
		switch {
		case get("GEMINI_API_KEY") != "":
			r.KeyVar = "GEMINI_API_KEY"
		case get("GOOGLE_API_KEY") != "":
			r.KeyVar = "GOOGLE_API_KEY"
		default:
			return Route{}, ErrNoKey
		}
		return r.withUpstream(get("GOOGLE_GEMINI_BASE_URL"), "https://generativelanguage.googleapis.com")
	case "codex":
		return codexPlan(env)
	case "aider":
		// Through an OpenAI-compatible API only: the one whose base URL
		// aider reads from the environment for every model.
		if get("OPENAI_API_KEY") == "" {
			return Route{}, ErrUnsupported
		}
		r := Route{Agent: agentName, KeyVar: "OPENAI_API_KEY", dummyVar: "OPENAI_API_KEY", baseVar: "OPENAI_API_BASE", header: headerBearer}
		return r.withUpstream(get("OPENAI_API_BASE"), "https://api.openai.com/v1")
	}
	return Route{}, ErrUnsupported
}

// codexPlan follows Codex's configuration ($CODEX_HOME/config.toml):
// the provider it names (model_provider) with its base_url and env_key,
// or the built-in OpenAI provider (OPENAI_BASE_URL, OPENAI_API_KEY).
func codexPlan(env []string) (Route, error) {
	home := lookup(env, "CODEX_HOME")
	if home == "" {
		home = filepath.Join(lookup(env, "HOME"), ".codex")
	}
	text, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	p := parseCodexConfig(string(text))
	r := Route{Agent: "codex", header: headerBearer, provider: p.provider}
	if p.provider == "" || p.provider == "openai" {
		// The built-in provider takes no base URL from the environment:
		// the CLI is given a provider of architect's (see Args).
		r.provider, r.builtin = "architect", true
		for _, k := range []string{"OPENAI_API_KEY", "CODEX_API_KEY"} {
			if lookup(env, k) != "" {
				r.KeyVar, r.dummyVar = k, k
				break
			}
		}
		if r.KeyVar == "" {
			return Route{}, ErrNoKey
		}
		return r.withUpstream(lookup(env, "OPENAI_BASE_URL"), "https://api.openai.com/v1")
	}
	if p.envKey == "" || p.baseURL == "" || lookup(env, p.envKey) == "" {
		return Route{}, ErrNoKey
	}
	r.KeyVar, r.dummyVar = p.envKey, p.envKey
	return r.withUpstream(p.baseURL, "")
}

func (r Route) withUpstream(set, def string) (Route, error) {
	raw := or(set, def)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Route{}, fmt.Errorf("the %s base URL %q is not an http(s) URL", r.Agent, raw)
	}
	r.upstream = u
	return r, nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func lookup(env []string, k string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], k+"="); ok {
			return v
		}
	}
	return ""
}

// codexConfig is what the broker reads of Codex's config.toml.
type codexConfig struct{ provider, baseURL, envKey string }

// parseCodexConfig reads the top-level model_provider and that provider's
// base_url and env_key: simple key = "string" lines, as Codex's
// documentation writes them.
func parseCodexConfig(text string) codexConfig {
	var c codexConfig
	section := ""
	values := map[string]map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = strings.Trim(line, "[] ")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if i := strings.LastIndex(v, "#"); i > 0 && strings.HasSuffix(strings.TrimSpace(v[:i]), `"`) {
			v = strings.TrimSpace(v[:i])
		}
		v = strings.Trim(v, `"'`)
		if values[section] == nil {
			values[section] = map[string]string{}
		}
		values[section][k] = v
	}
	c.provider = values[""]["model_provider"]
	if p := values["model_providers."+c.provider]; p != nil {
		c.baseURL, c.envKey = p["base_url"], p["env_key"]
	}
	return c
}

// Broker serves one route on loopback.
type Broker struct {
	route    Route
	dummy    string
	ln       net.Listener
	srv      *http.Server
	forwards atomic.Int64
	refused  atomic.Int64
}

// Start serves r on 127.0.0.1, on a free port, with a key made up now.
func Start(r Route) (*Broker, error) {
	if r.upstream == nil {
		return nil, errors.New("broker: a route without an upstream")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("credential broker: %w", err)
	}
	b := &Broker{route: r, dummy: "architect-broker-" + rand.Text(), ln: ln}
	target := &url.URL{Scheme: r.upstream.Scheme, Host: r.upstream.Host}
	transport := r.transport
	if transport == nil {
		transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = target.Host
			b.putKey(pr.Out)
		},
		FlushInterval: -1, // a streamed answer (SSE) goes on as it comes
		Transport:     transport,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "architect's credential broker could not reach "+target.Host+": "+err.Error(), http.StatusBadGateway)
		},
	}
	b.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if !b.allowed(req) {
				b.refused.Add(1)
				http.Error(w, `{"error":{"type":"authentication_error","message":"architect's credential broker: wrong key"}}`, http.StatusUnauthorized)
				return
			}
			b.forwards.Add(1)
			proxy.ServeHTTP(w, req)
		}),
		ReadHeaderTimeout: 30 * time.Second,
	}
	go func() { _ = b.srv.Serve(ln) }()
	return b, nil
}

// keyHeaders are where a CLI may put its key.
var keyHeaders = []string{headerAnthropic, headerBearer, headerGoogle}

// allowed reports whether req carries the run's made-up key, in any of
// the places a CLI puts one.
func (b *Broker) allowed(req *http.Request) bool {
	for _, h := range keyHeaders {
		for _, v := range req.Header.Values(h) {
			v = strings.TrimSpace(v)
			if h == headerBearer {
				var ok bool
				if v, ok = strings.CutPrefix(v, "Bearer "); !ok {
					continue
				}
			}
			if subtle.ConstantTimeCompare([]byte(v), []byte(b.dummy)) == 1 {
				return true
			}
		}
	}
	k := req.URL.Query().Get("key")
	return k != "" && subtle.ConstantTimeCompare([]byte(k), []byte(b.dummy)) == 1
}

// putKey takes the made-up key out of out and puts the real one in.
func (b *Broker) putKey(out *http.Request) {
	for _, h := range keyHeaders {
		out.Header.Del(h)
	}
	if q := out.URL.Query(); q.Has("key") {
		q.Del("key")
		out.URL.RawQuery = q.Encode()
	}
	v := b.route.key
	if b.route.header == headerBearer {
		v = "Bearer " + v
	}
	out.Header.Set(b.route.header, v)
}

// URL is the base URL the CLI is given: the broker's address, with the
// upstream's path.
func (b *Broker) URL() string {
	return "http://" + b.ln.Addr().String() + strings.TrimSuffix(b.route.upstream.Path, "/")
}

// Env is what the agent's environment gets: the variable pointing the CLI
// at the broker, and the made-up key in the variable it reads its key
// from.
func (b *Broker) Env() []string {
	env := []string{b.route.dummyVar + "=" + b.dummy}
	if b.route.baseVar != "" {
		env = append(env, b.route.baseVar+"="+b.URL())
	}
	return env
}

// Args are the arguments the CLI gets: for a Codex provider of the
// user's configuration, its base_url overridden; in place of Codex's
// built-in OpenAI provider, one of architect's with the broker's URL.
func (b *Broker) Args() []string {
	if b.route.baseVar != "" || b.route.provider == "" {
		return nil
	}
	set := func(k, v string) []string {
		return []string{"-c", fmt.Sprintf("model_providers.%s.%s=%q", b.route.provider, k, v)}
	}
	args := set("base_url", b.URL())
	if b.route.builtin {
		args = append([]string{"-c", fmt.Sprintf("model_provider=%q", b.route.provider)}, args...)
		args = append(args, set("name", "OpenAI through architect's credential broker")...)
		args = append(args, set("env_key", b.route.dummyVar)...)
		args = append(args, set("wire_api", "responses")...)
	}
	return args
}

// Forwarded and Refused count the requests the broker passed on and those
// it turned away (a wrong or missing key).
func (b *Broker) Forwarded() int64 { return b.forwards.Load() }
func (b *Broker) Refused() int64   { return b.refused.Load() }

// Close stops serving, ending requests still open.
func (b *Broker) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := b.srv.Shutdown(ctx); err != nil {
		return b.srv.Close()
	}
	return nil
}

// Strip returns env without the model keys (ModelKeys and more), except
// the variables named in pass.
func Strip(env []string, pass []string, more ...string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return (slices.Contains(ModelKeys, k) || slices.Contains(more, k)) && !slices.Contains(pass, k)
	})
}
