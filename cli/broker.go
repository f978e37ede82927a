package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/sandbox/broker"
	"github.com/architect-dev/architect/usererr"
)

// brokered is an agent run while a broker holds the keys: its
// environment has no model key but the made-up one of its own broker, if
// it has one, and the broker's URL.
type brokered struct {
	agent.Agent
	env  []string // the broker's variables
	drop []string // key variables beyond broker.ModelKeys
}

func (b brokered) Run(ctx context.Context, req agent.Request) agent.Outcome {
	base := req.Env
	if base == nil {
		base = os.Environ()
	}
	req.Env = append(broker.Strip(base, nil, b.drop...), b.env...)
	return b.Agent.Run(ctx, req)
}

// brokers are the run's credential brokers, by agent name (a batch's:
// shared by its tasks, since the environment they are planned from is
// one), and the key variables they hold beyond broker.ModelKeys.
type brokers struct {
	by   map[string]*broker.Broker
	drop []string
}

func (bs *brokers) close() {
	for _, b := range bs.by {
		_ = b.Close()
	}
}

// planBrokers finds what each of the run's agents (its own, each
// fallback, each candidate of a list) would broker. An agent CLI architect cannot point at a broker
// is refused while a model key is in the environment, unless --broker
// off: it would hold the key, and without it the CLI cannot work. A
// command agent (--agent-cmd: a script, the demo's agent) is not refused:
// it runs without the keys, as the checks and hooks do, and warn says so.
// off is how the user turns the broker off, for the hints (--broker off).
func planBrokers(cfg config.Config, env []string, off string, warn func(string)) (map[string]broker.Route, error) {
	routes := map[string]broker.Route{}
	if cfg.Broker == config.BrokerOff {
		return routes, nil
	}
	// The run's agent, its fallbacks, and the agents of a candidates list:
	// each one that runs is brokered, or refused while it would get a key.
	agents := append([]agent.Config{cfg.AgentConfig()}, cfg.FallbackAgents()...)
	if len(cfg.CandidateAgents) > 0 {
		agents = append(agents, cfg.CandidateConfigs()...)
	}
	if rc, ok := cfg.ReviewerAgent(); ok {
		agents = append(agents, rc)
	}
	for _, ac := range agents {
		if _, done := routes[ac.Name]; done {
			continue
		}
		r, err := broker.Plan(ac.Name, env)
		switch {
		case err == nil:
			routes[ac.Name] = r
		case errors.Is(err, broker.ErrNoKey):
		case errors.Is(err, broker.ErrUnsupported) && ac.Name == commandAgent:
			if keys := heldKeys(env); len(keys) > 0 {
				warn(fmt.Sprintf("the command agent runs without the model API keys in the environment (%s): it cannot be pointed at architect's credential broker; %s gives it the keys", strings.Join(keys, ", "), off))
			}
		case errors.Is(err, broker.ErrUnsupported):
			if keys := heldKeys(env); len(keys) > 0 {
				return nil, &usererr.Error{
					Msg:  fmt.Sprintf("the %s agent cannot be pointed at architect's credential broker, and the environment holds model API keys (%s) that it would get", ac.Name, strings.Join(keys, ", ")),
					Hint: off + " gives the keys to the agent, the checks and the hooks as before; or unset them",
					Err:  err,
				}
			}
		default:
			return nil, &usererr.Error{Msg: "credential broker: " + err.Error(), Hint: "fix the base URL, or run with " + off, Err: err}
		}
	}
	return routes, nil
}

// commandAgent is the name of the agent --agent-cmd runs.
const commandAgent = "command"

// heldKeys are the model key variables set in env.
func heldKeys(env []string) []string {
	var keys []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if v != "" && slices.Contains(broker.ModelKeys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// hideKeys takes the model keys out of architect's own environment
// (unless --broker off): no process architect starts (the pre-flight's
// probes, checks, hooks, agents) inherits them. They are also put out of
// reach of other processes (takeKeys). It returns what gives the
// checks and hooks back the keys --check-env names, once the pre-flight's
// probes of the agent are done (the agents lose them again: brokered).
func hideKeys(w io.Writer, cfg config.Config, routes map[string]broker.Route) (passBack func()) {
	if cfg.Broker == config.BrokerOff {
		return func() {}
	}
	pass := namedKeys(takeKeys(w, cfg.Quiet, routes), cfg.CheckEnv)
	return func() {
		for _, kv := range pass {
			k, v, _ := strings.Cut(kv, "=")
			_ = os.Setenv(k, v)
		}
	}
}

// takeKeys takes the model keys (broker.ModelKeys, and the variables
// the routes read theirs from) out of architect's own environment, and
// out of reach of other processes: their values are blanked in
// /proc/PID/environ and the process is made undumpable (broker.Seal). It
// returns them, KEY=VALUE, for what gives some back by name.
func takeKeys(w io.Writer, quiet bool, routes map[string]broker.Route) (held []string) {
	var drop, names []string
	for _, r := range routes {
		drop = append(drop, r.KeyVar)
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(broker.ModelKeys, k) || slices.Contains(drop, k) {
			held, names = append(held, kv), append(names, k)
			_ = os.Unsetenv(k)
		}
	}
	if len(held) == 0 {
		return nil
	}
	if err := broker.Seal(names); err != nil && !quiet {
		usererr.Say(w, usererr.LevelWarning, "cannot keep other processes from reading architect's memory: %v", err)
	}
	return held
}

// namedKeys are the entries of held (KEY=VALUE) whose key is in names.
func namedKeys(held, names []string) []string {
	var out []string
	for _, kv := range held {
		if k, _, _ := strings.Cut(kv, "="); slices.Contains(names, k) {
			out = append(out, kv)
		}
	}
	return out
}

// startBrokers serves the routes, saying so on w.
func startBrokers(w io.Writer, quiet bool, routes map[string]broker.Route) (*brokers, error) {
	bs := &brokers{by: map[string]*broker.Broker{}}
	for name, r := range routes {
		b, err := broker.Start(r)
		if err != nil {
			bs.close()
			return nil, err
		}
		bs.by[name] = b
		bs.drop = append(bs.drop, r.KeyVar)
		if !quiet {
			fmt.Fprintf(w, "architect: credential broker: the %s agent reaches %s through architect; %s stays with architect\n", name, r.Upstream(), r.KeyVar)
		}
	}
	return bs, nil
}

// wrap builds the agent of ac to run while the brokers hold the keys: its
// broker's, if it has one, points it there; every one loses the keys.
func (bs *brokers) wrap(ac agent.Config) (agent.Agent, error) {
	b := bs.by[ac.Name]
	if b != nil {
		ac.Args = append(slices.Clone(ac.Args), b.Args()...)
	}
	a, err := agent.New(ac)
	if err != nil {
		return a, err
	}
	if b == nil { // an agent with a login of its own: no key either
		return brokered{Agent: a, drop: bs.drop}, nil
	}
	return brokered{Agent: a, env: b.Env(), drop: bs.drop}, nil
}

// use hands deps the agents that run while the brokers hold the keys:
// the run's own (own) and those it builds (fallbacks, candidates).
func (bs *brokers) use(own agent.Config, deps *loop.Deps) error {
	if deps.Agent == nil || deps.Agent.Name() == own.Name {
		a, err := bs.wrap(own)
		if err != nil {
			return err
		}
		deps.Agent = a
	}
	deps.NewAgent = bs.wrap
	return nil
}
