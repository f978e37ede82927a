package config

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Notifier is one entry of notifiers: in ralph.yaml: a service architect
// posts the run's events to (package notify). Its secrets (the webhook
// URL, the bot token) are read from the environment variables it names,
// never written in the file, and masked in everything architect writes.
type Notifier struct {
	Type string `json:"type"` // NotifySlack, NotifyTelegram, NotifyNtfy or NotifyWebhook
	// URLEnv names the variable holding the URL to post to: the Slack
	// incoming webhook, the ntfy topic URL, the JSON webhook.
	URLEnv string `json:"url_env,omitempty"`
	// TokenEnv names the variable holding the Telegram bot token, or the
	// ntfy access token (optional).
	TokenEnv string `json:"token_env,omitempty"`
	ChatID   string `json:"chat_id,omitempty"` // telegram: the chat to write to
	// APIURL is the Telegram Bot API's base URL ("": the public one).
	APIURL string `json:"api_url,omitempty"`
	// Events are the events posted (NotifyEvents); none: all of them.
	Events []string `json:"events,omitempty"`
	// Replies (ntfy): a message published to the topic after a question
	// answers it; architect polls the topic while the question waits.
	Replies bool `json:"replies,omitempty"`
}

// The notifiers' types.
const (
	NotifySlack    = "slack"
	NotifyTelegram = "telegram"
	NotifyNtfy     = "ntfy"
	NotifyWebhook  = "webhook"
)

// NotifyTypes lists the notifiers' types.
func NotifyTypes() []string {
	return []string{NotifySlack, NotifyTelegram, NotifyNtfy, NotifyWebhook}
}

// NotifyEvents lists the events a notifier can post: the run started, the
// agent asked a question, the run succeeded, failed, or reached a limit
// (iterations, cost, time), or it waits for a usage limit to lift.
func NotifyEvents() []string {
	return []string{"started", "question", "success", "failure", "limit", "usage_limit_wait"}
}

// Whether an agent may ask the person running the loop a question
// (questions), and what an unanswered one comes to (on_question_timeout).
const (
	QuestionsOn      = "on"
	QuestionsOff     = "off"
	QuestionStop     = "stop"
	QuestionContinue = "continue"
)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var notifierKeys = []string{"type", "url_env", "token_env", "chat_id", "api_url", "events", "replies"}

// loadNotifiers reads notifiers: [{type: slack, url_env: NAME, events: [...]}, ...].
func loadNotifiers(path string, m *yaml.Node, c *Config, src Sources) Errors {
	hint := "notifiers: [{type: telegram, token_env: TELEGRAM_BOT_TOKEN, chat_id: \"123456\"}] (see docs/notifications-and-questions.md)"
	var n *Notifier
	var list []Notifier
	errs, given := loadMappings(path, m, mappings{
		name: "notifiers", what: "notifier", shape: "type, url_env or token_env, events", hint: hint, keys: notifierKeys,
		begin: func() { n = &Notifier{} },
		field: func(key string, k, v *yaml.Node) *Error {
			if handled, err := notifierOwnValue(path, key, k.Value, v, n); handled {
				return err
			}
			if err := scalarValue(path, key, k, v, hint); err != nil {
				return err
			}
			switch k.Value {
			case "type":
				n.Type = v.Value
			case "url_env":
				n.URLEnv = v.Value
			case "token_env":
				n.TokenEnv = v.Value
			case "chat_id":
				n.ChatID = v.Value
			case "api_url":
				n.APIURL = v.Value
			}
			return nil
		},
		end: func(key string, item *yaml.Node) Errors {
			var errs Errors
			for _, p := range n.Problems() {
				errs = append(errs, &Error{Source: at(path, item), Key: key, Msg: p, Hint: hint})
			}
			list = append(list, *n)
			return errs
		},
	})
	if given {
		c.Notifiers = list
		src["notifiers"] = at(path, m)
	}
	return errs
}

// mappings describes a key whose value is a list of mappings (notifiers:,
// roles:) for loadMappings: its name, what one entry is, its keys, and
// how an entry is begun, read a pair at a time, and ended.
type mappings struct {
	name, what, shape, hint string
	keys                    []string
	begin                   func()
	field                   func(key string, k, v *yaml.Node) *Error
	end                     func(key string, item *yaml.Node) Errors
}

// loadMappings reads the list of mappings m as l says: null is nothing
// given; anything but a list, an entry that is not a mapping, or a key
// not among l.keys is an error naming where. given reports whether the
// list was there (an empty one included).
func loadMappings(path string, m *yaml.Node, l mappings) (errs Errors, given bool) {
	if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
		return nil, false
	}
	if m.Kind != yaml.SequenceNode {
		return Errors{{Source: at(path, m), Key: l.name, Msg: "must be a list of " + l.what + "s", Hint: l.hint}}, false
	}
	for i, item := range m.Content {
		key := fmt.Sprintf("%s[%d]", l.name, i)
		if item.Kind != yaml.MappingNode {
			errs = append(errs, &Error{Source: at(path, item), Key: key, Msg: "must be a mapping (" + l.shape + ")", Hint: l.hint})
			continue
		}
		l.begin()
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, v := item.Content[j], item.Content[j+1]
			if !slices.Contains(l.keys, k.Value) {
				errs = append(errs, unknownKey(path, k, l.keys, key))
				continue
			}
			if err := l.field(key, k, v); err != nil {
				errs = append(errs, err)
			}
		}
		errs = append(errs, l.end(key, item)...)
	}
	return errs, true
}

// scalarValue refuses a value of key k in entry key that is not a single
// value.
func scalarValue(path, key string, k, v *yaml.Node, hint string) *Error {
	if v.Kind != yaml.ScalarNode {
		return &Error{Source: at(path, v), Key: key + "." + k.Value, Msg: "must be a single value", Hint: hint}
	}
	return nil
}

// notifierOwnValue reads the notifier keys that are no plain string
// (events, replies) into n; handled is false for the others.
func notifierOwnValue(path, key, name string, v *yaml.Node, n *Notifier) (handled bool, err *Error) {
	switch name {
	case "events":
		if v.Decode(&n.Events) != nil {
			var one string
			if v.Decode(&one) != nil {
				return true, &Error{Source: at(path, v), Key: key + ".events", Msg: "must be a list of events", Hint: "events: [" + strings.Join(NotifyEvents(), ", ") + "]"}
			}
			n.Events = []string{one}
		}
		return true, nil
	case "replies":
		if v.Kind != yaml.ScalarNode || v.Decode(&n.Replies) != nil {
			return true, &Error{Source: at(path, v), Key: key + ".replies", Msg: "must be true or false", Hint: "replies: true (ntfy: a message on the topic answers the agent's question)"}
		}
		return true, nil
	}
	return false, nil
}

// Problems lists what is wrong with n, in words; none when it can be used.
func (n Notifier) Problems() []string {
	if !slices.Contains(NotifyTypes(), n.Type) {
		return []string{fmt.Sprintf("type %q is not one of %s", n.Type, strings.Join(NotifyTypes(), ", "))}
	}
	var ps []string
	for _, name := range []struct{ key, value string }{{"url_env", n.URLEnv}, {"token_env", n.TokenEnv}} {
		if name.value != "" && !envName.MatchString(name.value) {
			ps = append(ps, fmt.Sprintf("%s %q is not the name of an environment variable (the secret itself never goes in the file)", name.key, name.value))
		}
	}
	if n.Type == NotifyTelegram {
		ps = append(ps, n.telegramProblems()...)
	} else {
		ps = append(ps, n.webhookProblems()...)
	}
	for _, e := range n.Events {
		if !slices.Contains(NotifyEvents(), e) {
			ps = append(ps, fmt.Sprintf("event %q is not one of %s", e, strings.Join(NotifyEvents(), ", ")))
		}
	}
	return ps
}

// telegramProblems are a telegram notifier's own problems.
func (n Notifier) telegramProblems() []string {
	var ps []string
	if n.TokenEnv == "" || n.ChatID == "" {
		ps = append(ps, "a telegram notifier needs token_env (the variable holding the bot token) and chat_id")
	}
	if n.URLEnv != "" {
		ps = append(ps, "a telegram notifier takes no url_env (api_url sets the Bot API's address)")
	}
	if n.APIURL != "" {
		if u, err := url.Parse(n.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			ps = append(ps, fmt.Sprintf("api_url %q is not an http(s) URL", n.APIURL))
		}
	}
	return ps
}

// webhookProblems are the problems of a notifier that posts to a URL
// (slack, ntfy, webhook).
func (n Notifier) webhookProblems() []string {
	var ps []string
	if n.URLEnv == "" {
		ps = append(ps, "a "+n.Type+" notifier needs url_env: the variable holding the URL to post to")
	}
	if n.TokenEnv != "" && n.Type != NotifyNtfy {
		ps = append(ps, "only telegram and ntfy notifiers take token_env")
	}
	if n.ChatID != "" || n.APIURL != "" {
		ps = append(ps, "only telegram notifiers take chat_id and api_url")
	}
	if n.Replies && n.Type != NotifyNtfy {
		ps = append(ps, "only ntfy notifiers take replies (a telegram notifier always reads the replies to its question)")
	}
	if n.Replies && n.Type == NotifyNtfy && !n.Posts("question") {
		ps = append(ps, "replies: true needs the question event: add question to events, or leave replies out")
	}
	return ps
}

// Posts reports whether n posts event (one of NotifyEvents).
func (n Notifier) Posts(event string) bool {
	return len(n.Events) == 0 || slices.Contains(n.Events, event)
}

// SecretVars are the environment variables the notifiers read secrets
// from, which architect masks wherever it writes.
func (c Config) SecretVars() []string {
	var names []string
	for _, n := range c.Notifiers {
		for _, v := range []string{n.URLEnv, n.TokenEnv} {
			if v != "" && !slices.Contains(names, v) {
				names = append(names, v)
			}
		}
	}
	return names
}

// notifierSchema is the JSON Schema of one notifier.
func notifierSchema() map[string]any {
	str := func(d string) map[string]any { return map[string]any{"type": "string", "description": d} }
	return map[string]any{
		"description":          "a service the run's events are posted to; its secrets come from the environment variables it names",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"type"},
		"properties": map[string]any{
			"type":      map[string]any{"type": "string", "enum": NotifyTypes()},
			"url_env":   str("the environment variable holding the URL to post to (slack, ntfy, webhook)"),
			"token_env": str("the environment variable holding the Telegram bot token, or the ntfy access token"),
			"chat_id":   str("telegram: the chat to write to"),
			"api_url":   str("telegram: the Bot API's base URL (default https://api.telegram.org)"),
			"replies":   map[string]any{"type": "boolean", "description": "ntfy: a message published to the topic after the agent's question answers it (default false)"},
			"events": map[string]any{
				"description": "the events posted (default all)",
				"type":        "array",
				"items":       map[string]any{"type": "string", "enum": NotifyEvents()},
			},
		},
	}
}
