package config

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestNotifiersSection(t *testing.T) {
	is := is.New(t)
	path := writeFile(t, "n.yaml", `ralph_loop:
  task: t
  questions: on
  question_timeout: 5m
  on_question_timeout: continue
  notifiers:
    - {type: telegram, token_env: TG, chat_id: "12", api_url: "http://127.0.0.1:9", events: [question, success]}
    - {type: slack, url_env: SLACK_URL}
    - {type: ntfy, url_env: NTFY, token_env: NTFY_TOKEN, events: failure}
`)
	c, err := loadFileOnly(path)
	is.NoErr(err)
	is.Equal(len(c.Notifiers), 3)
	is.Equal(c.Notifiers[0], Notifier{Type: NotifyTelegram, TokenEnv: "TG", ChatID: "12", APIURL: "http://127.0.0.1:9", Events: []string{"question", "success"}})
	is.Equal(c.Notifiers[2].Events, []string{"failure"})
	is.True(c.Notifiers[0].Posts("question") && !c.Notifiers[0].Posts("started"))
	is.True(c.Notifiers[1].Posts("started")) // no events: all of them
	is.Equal(c.SecretVars(), []string{"TG", "SLACK_URL", "NTFY", "NTFY_TOKEN"})
	is.Equal(c.Questions, QuestionsOn)
	is.Equal(c.OnQuestionTimeout, QuestionContinue)
}

func TestNotifierProblems(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"[{type: email, url_env: X}]", `type "email" is not one of slack, telegram, ntfy, webhook`},
		{"[{type: slack, url_env: 'https://hooks.slack.com/services/T/B/X'}]", "is not the name of an environment variable"},
		{"[{type: slack}]", "a slack notifier needs url_env"},
		{"[{type: telegram, token_env: TG}]", "needs token_env (the variable holding the bot token) and chat_id"},
		{"[{type: telegram, token_env: TG, chat_id: '1', api_url: 'ftp://x'}]", `api_url "ftp://x" is not an http(s) URL`},
		{"[{type: webhook, url_env: U, token_env: T}]", "only telegram and ntfy notifiers take token_env"},
		{"[{type: slack, url_env: U, events: [finished]}]", `event "finished" is not one of`},
		{"[{type: slack, url: U}]", `unknown key "url" in notifiers[0]`},
		{"{type: slack}", "must be a list of notifiers"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			is := is.New(t)
			_, err := loadFileOnly(writeFile(t, "bad.yaml", "ralph_loop:\n  task: t\n  notifiers: "+c.yaml+"\n"))
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), c.want)) // names the problem
		})
	}
}

// questions and on_question_timeout take only their words: a typo is
// refused, not taken as off or as stop.
func TestQuestionWordsChecked(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--questions", "maybe"}, `--questions: "maybe" is neither on nor off`},
		{[]string{"--on-question-timeout", "wait"}, `--on-question-timeout: "wait" is neither stop nor continue`},
	} {
		fs, fl := parse(t, append([]string{"--check", "true"}, c.args...)...)
		_, _, _, err := LoadSources("", "fix it", noEnv, fs, fl)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}
