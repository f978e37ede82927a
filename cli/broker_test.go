package cli

import (
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/config"
)

// Every agent a run may start is brokered: a candidate of the list form
// whose CLI is not the run's own gets its own route, so its key stays
// with architect as the run's agent's does; one that cannot be brokered
// is refused while a key is there.
func TestPlanBrokersCoversCandidates(t *testing.T) {
	is := is.New(t)
	cfg := config.Defaults()
	cfg.Agent = "claude"
	cfg.CandidateAgents = []config.CandidateAgent{{Agent: "claude"}, {Agent: "codex"}}
	env := []string{"ANTHROPIC_API_KEY=sk-ant-x", "OPENAI_API_KEY=sk-y"}
	routes, err := planBrokers(cfg, env, "--broker off", func(string) {})
	is.NoErr(err)
	is.True(routes["claude"].KeyVar == "ANTHROPIC_API_KEY")
	is.True(routes["codex"].KeyVar == "OPENAI_API_KEY") // the candidate's own CLI

	cfg.CandidateAgents = append(cfg.CandidateAgents, config.CandidateAgent{Agent: "amp"})
	_, err = planBrokers(cfg, env, "--broker off", func(string) {})
	is.True(err != nil) // amp cannot be brokered, and would get the keys
}

// The reviewer (--reviewer) is an agent the run starts: brokered like the
// others, or refused while a key is there.
func TestPlanBrokersCoversTheReviewer(t *testing.T) {
	is := is.New(t)
	cfg := config.Defaults()
	cfg.Agent = "claude"
	cfg.Reviewer = "codex:gpt-5.5"
	env := []string{"ANTHROPIC_API_KEY=sk-ant-x", "OPENAI_API_KEY=sk-y"}
	routes, err := planBrokers(cfg, env, "--broker off", func(string) {})
	is.NoErr(err)
	is.True(routes["codex"].KeyVar == "OPENAI_API_KEY")

	cfg.Reviewer = "amp"
	_, err = planBrokers(cfg, env, "--broker off", func(string) {})
	is.True(err != nil) // amp cannot be brokered, and would get the keys
}
