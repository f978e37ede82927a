// Package redact removes secrets from text before architect writes it
// anywhere: prompts, the progress file, events, logs, results and state.
// A secret is the value of an environment variable whose name contains
// TOKEN, KEY, SECRET or PASSWORD, or a match of a user-given regular
// expression (--redact), or a credential of a known format (WithKnown);
// each is replaced by Mask.
//
// Values shorter than MinLen are ignored: "1", "yes" or "dev" in a variable
// named *_KEY would otherwise blank out ordinary words everywhere. Values
// that appear in the task itself are ignored too (see New): the task is
// the user's own text, and masking a word of it would change the task.
package redact

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Mask replaces every secret.
const Mask = "***"

// MinLen is the shortest environment value treated as a secret.
const MinLen = 4

// nameWords mark an environment variable as secret, case-insensitively.
var nameWords = []string{"TOKEN", "KEY", "SECRET", "PASSWORD"}

// Redactor replaces secrets in text. The zero value and nil replace nothing.
type Redactor struct {
	values   []string // longest first, so that a secret containing another is masked whole
	replacer *strings.Replacer
	patterns []*regexp.Regexp
	known    bool // known credential formats are masked too (see known.go)
}

// SecretName reports whether an environment variable called name holds a
// secret.
func SecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range nameWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// New returns a Redactor for the secret values in environ (KEY=VALUE
// entries, as os.Environ returns them) and the regular expressions in
// patterns. Values found in any of keep (the task, the specification) are
// not treated as secrets. A pattern that does not compile is an error.
func New(environ, patterns []string, keep ...string) (*Redactor, error) {
	return NewNamed(environ, nil, patterns, keep...)
}

// NewNamed is New, with the variables in names secret too whatever they
// are called (a notifier's webhook URL in SLACK_WEBHOOK_URL).
func NewNamed(environ, names, patterns []string, keep ...string) (*Redactor, error) {
	r := &Redactor{}
	seen := map[string]bool{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !SecretName(name) && !slices.Contains(names, name) || len(strings.TrimSpace(value)) < MinLen || seen[value] {
			continue
		}
		if slices.ContainsFunc(keep, func(k string) bool { return strings.Contains(k, value) }) {
			continue
		}
		seen[value] = true
		r.values = append(r.values, value)
	}
	slices.SortFunc(r.values, func(a, b string) int { return len(b) - len(a) })
	if len(r.values) > 0 {
		pairs := make([]string, 0, 2*len(r.values))
		for _, v := range r.values {
			pairs = append(pairs, v, Mask)
		}
		r.replacer = strings.NewReplacer(pairs...)
	}
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, err
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("%q matches the empty text, so it would mask everywhere", p)
		}
		r.patterns = append(r.patterns, re)
	}
	return r, nil
}

// FromEnv is New with the process's environment.
func FromEnv(patterns []string, keep ...string) (*Redactor, error) {
	return New(os.Environ(), patterns, keep...)
}

// String returns s with every secret replaced by Mask.
func (r *Redactor) String(s string) string {
	if r == nil || s == "" {
		return s
	}
	if r.replacer != nil {
		s = r.replacer.Replace(s)
	}
	for _, re := range r.patterns {
		s = re.ReplaceAllLiteralString(s, Mask)
	}
	if r.known {
		s = maskKnown(s)
	}
	return s
}

// WithKnown returns r, masking also the credentials of a known format
// (GitHub, GitLab, Anthropic, OpenAI, AWS, Google Cloud, Slack and other
// tokens, private-key blocks, passwords in URLs) wherever they appear,
// though no variable and no pattern names them. A nil r gives a Redactor
// that masks only those.
func (r *Redactor) WithKnown() *Redactor {
	if r == nil {
		r = &Redactor{}
	}
	r.known = true
	return r
}

// Empty reports whether r replaces nothing.
func (r *Redactor) Empty() bool {
	return r == nil || (len(r.values) == 0 && len(r.patterns) == 0 && !r.known)
}
