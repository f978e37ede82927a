package redact

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Known credential formats are masked without anyone naming them: the
// rules are gitleaks' own (github.com/zricethezav/gitleaks/v8, its
// config/gitleaks.toml), the ones listed in knownIDs, copied into
// known_rules.go by `go test ./redact -run TestKnownRulesInStep -update`
// (the test fails when the copy and the module in go.mod differ). Only
// rules for a token of its own recognisable shape are taken: gitleaks'
// generic "name = value" rules would mask ordinary code in the prompts
// the agent reads. Compiling them all with gitleaks' loader costs
// start-up time and megabytes of binary that a loop runner pays on every
// run, so the chosen ones are compiled here, once, on first use. Left out
// as well: Vault's old service token ("s." and 24 letters), which is also
// the shape of a field access in code.

// knownIDs are the gitleaks rules architect masks with.
var knownIDs = []string{
	// GitHub
	"github-pat", "github-fine-grained-pat", "github-oauth", "github-app-token", "github-refresh-token",
	// GitLab
	"gitlab-pat", "gitlab-pat-routable", "gitlab-ptt", "gitlab-rrt", "gitlab-runner-authentication-token",
	"gitlab-runner-authentication-token-routable", "gitlab-deploy-token", "gitlab-scim-token", "gitlab-feed-token",
	"gitlab-oauth-app-secret", "gitlab-cicd-job-token",
	// model providers
	"anthropic-api-key", "anthropic-admin-api-key", "openai-api-key", "huggingface-access-token",
	"huggingface-organization-api-token", "perplexity-api-key",
	// AWS, Google Cloud, Azure and other clouds
	"aws-access-token", "aws-amazon-bedrock-api-key-long-lived", "aws-amazon-bedrock-api-key-short-lived",
	"gcp-api-key", "digitalocean-pat", "digitalocean-access-token", "digitalocean-refresh-token",
	"heroku-api-key-v2", "hashicorp-tf-api-token", "vault-batch-token", "flyio-access-token",
	"doppler-api-token", "cloudflare-origin-ca-key", "databricks-api-token", "grafana-cloud-api-token",
	"grafana-service-account-token", "planetscale-api-token", "planetscale-password", "planetscale-oauth-token",
	"pulumi-api-token", "1password-service-account-token", "dynatrace-api-token",
	// Slack
	"slack-app-token", "slack-bot-token", "slack-user-token", "slack-webhook-url", "slack-config-access-token",
	"slack-config-refresh-token", "slack-legacy-bot-token", "slack-legacy-token", "slack-legacy-workspace-token",
	// package registries
	"npm-access-token", "pypi-upload-token", "rubygems-api-token", "clojars-api-token",
	// others with a shape of their own
	"stripe-access-token", "sendgrid-api-token", "shopify-access-token", "shopify-custom-access-token",
	"shopify-private-app-access-token", "shopify-shared-secret", "linear-api-key", "notion-api-token",
	"postman-api-token", "sentry-user-token", "sentry-org-token", "age-secret-key",
	"jwt", "private-key",
}

// knownRule is one gitleaks rule: its regular expression, the keywords
// one of which the text must hold (lower case) for the expression to be
// tried, the group that is the secret (0: the first that matched, or the
// whole match when there is none) and the Shannon entropy the secret
// must exceed (0: any).
type knownRule struct {
	ID          string
	Regex       string
	Keywords    []string
	SecretGroup int
	Entropy     float64
}

// keywordsFor narrows the keywords of two rules whose own ("ey" for a
// JWT, "://" for a URL) are in most lines of an agent's output, where
// trying their expressions made masking a hundred times slower: a JWT's
// header is base64 of `{"`, so it starts "eyJ", and a URL with a password
// has an "@". Each rule's expression is tried on a text holding any of
// its keywords and all of its needs.
var keywordsFor = map[string]struct{ any, all []string }{
	"jwt":          {any: []string{"eyj"}, all: []string{"."}},
	"url-password": {any: []string{"://"}, all: []string{"@"}},
}

// urlPassword is the one expression of architect's own: a password in a
// URL's user information (scheme://user:PASSWORD@host), which no gitleaks
// rule covers outside a few products. The password alone is masked.
var urlPassword = knownRule{
	ID:    "url-password",
	Regex: `\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/?#@'"]{1,256}:([^\s/?#@'"]{1,256})@[^\s/?#@'"]`,
}

type compiledRule struct {
	knownRule
	needs []string // every one must be in the text too
	re    *regexp.Regexp
}

// ruleSet are the compiled rules and an index of their keywords by their
// first two bytes, which finds in one pass over a text the rules worth
// trying on it.
type ruleSet struct {
	rules  []compiledRule
	pairs  [1 << 16]bool        // a keyword starts with these two bytes
	byPair map[uint16][]keyword // the keywords that start with them
	always []int                // rules with no keyword: tried on every text
}

type keyword struct {
	text string // lower case
	rule int
}

// compiledKnown are the rules, compiled once, on first use.
var compiledKnown = sync.OnceValue(func() *ruleSet {
	set := &ruleSet{byPair: map[uint16][]keyword{}}
	rules := make([]compiledRule, 0, len(knownRules)+1)
	for _, r := range append(slices.Clone(knownRules), urlPassword) {
		c := compiledRule{knownRule: r, re: regexp.MustCompile(r.Regex)}
		if k, ok := keywordsFor[r.ID]; ok {
			c.Keywords, c.needs = k.any, k.all
		}
		rules = append(rules, c)
	}
	set.rules = rules
	for i, r := range rules {
		if len(r.Keywords) == 0 {
			set.always = append(set.always, i)
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			if len(k) < 2 {
				set.always = append(set.always, i)
				continue
			}
			p := pair(k[0], k[1])
			set.pairs[p] = true
			set.byPair[p] = append(set.byPair[p], keyword{k, i})
		}
	}
	return set
})

func pair(a, b byte) uint16 { return uint16(lower(a))<<8 | uint16(lower(b)) }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// candidates marks in found the rules one of whose keywords s holds (in
// any case), and those that have none.
func (set *ruleSet) candidates(s string, found []bool) {
	for _, i := range set.always {
		found[i] = true
	}
	for i := 0; i+1 < len(s); i++ {
		p := pair(s[i], s[i+1])
		if !set.pairs[p] {
			continue
		}
		for _, k := range set.byPair[p] {
			if !found[k.rule] && len(s)-i >= len(k.text) && strings.EqualFold(s[i:i+len(k.text)], k.text) {
				found[k.rule] = true
			}
		}
	}
}

// maskKnown returns s with every known credential replaced by Mask.
func maskKnown(s string) string {
	spans := knownSpans(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp[0]])
		b.WriteString(Mask)
		at = sp[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

// knownSpans are the byte ranges of s that hold a known credential, in
// order and not overlapping.
func knownSpans(s string) [][2]int {
	set := compiledKnown()
	var buf [128]bool // on the stack: the rules are fewer
	var found []bool
	if len(set.rules) <= len(buf) {
		found = buf[:len(set.rules)]
	} else {
		found = make([]bool, len(set.rules))
	}
	set.candidates(s, found)
	var spans [][2]int
	for i, r := range set.rules {
		if !found[i] || slices.ContainsFunc(r.needs, func(k string) bool { return !strings.Contains(s, k) }) {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
			lo, hi := secretSpan(m, r.SecretGroup)
			if lo >= hi || s[lo:hi] == Mask || (r.Entropy > 0 && entropy(s[lo:hi]) <= r.Entropy) {
				continue
			}
			spans = append(spans, [2]int{lo, hi})
		}
	}
	return merge(spans)
}

// secretSpan is the part of a match (as FindAllStringSubmatchIndex gives
// it) that is the secret: group g, or the first group that matched, or
// the whole match; as gitleaks chooses it.
func secretSpan(m []int, g int) (int, int) {
	if len(m) < 4 {
		return m[0], m[1]
	}
	if g > 0 {
		if 2*g+1 < len(m) && m[2*g] >= 0 {
			return m[2*g], m[2*g+1]
		}
		return m[0], m[1]
	}
	for i := 2; i+1 < len(m); i += 2 {
		if m[i] >= 0 && m[i+1] > m[i] {
			return m[i], m[i+1]
		}
	}
	return m[0], m[1]
}

// merge sorts spans and joins those that overlap or touch.
func merge(spans [][2]int) [][2]int {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		if sp[0] <= last[1] {
			last[1] = max(last[1], sp[1])
			continue
		}
		out = append(out, sp)
	}
	return out
}

// entropy is the Shannon entropy of s, in bits per byte, as gitleaks
// measures it (tokens are ASCII: a byte is a character).
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var e float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			f := float64(c) / n
			e -= f * math.Log2(f)
		}
	}
	return e
}
