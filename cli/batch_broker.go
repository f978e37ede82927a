package cli

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/batch"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/sandbox/broker"
	"github.com/architect-dev/architect/usererr"
)

// A batch keeps the model keys with architect's credential brokers as a
// run does (prepare): each task's broker: and check_env: are its own
// (from defaults: or the task), and the brokers are the batch's, one per
// agent CLI that has a key, shared by every task that runs it.

// batchBrokerOff is how a batch's user turns the broker off, for the hints.
const batchBrokerOff = "broker: off (in the task, or in defaults:)"

// planBatchBrokers finds what every task's agents (its own, its
// fallbacks, its candidates) would broker: planBrokers for each task with
// the broker on, from one environment, so one agent CLI has one route.
// A task whose agent cannot be brokered while a key is set refuses the
// batch, named.
func planBatchBrokers(w io.Writer, quiet bool, tasks []batch.Task) (map[string]broker.Route, error) {
	env := os.Environ()
	routes := map[string]broker.Route{}
	var warned []string
	warn := func(msg string) {
		if !quiet && !slices.Contains(warned, msg) {
			warned = append(warned, msg)
			usererr.Say(w, usererr.LevelWarning, "%s", msg)
		}
	}
	for _, t := range tasks {
		rs, err := planBrokers(t.Config, env, batchBrokerOff, warn)
		if ue := (*usererr.Error)(nil); errors.As(err, &ue) {
			return nil, &usererr.Error{Msg: "task " + t.ID + ": " + ue.Msg, Hint: ue.Hint, Err: ue.Err}
		} else if err != nil {
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		maps.Copy(routes, rs)
	}
	return routes, nil
}

// hideBatchKeys takes the model keys out of architect's own environment,
// as hideKeys does for a run (takeKeys), unless every task has the broker
// off; then gives each task the environment of its agents, checks and
// hooks in opts.Env: with every key for a task with the broker off, with
// those its check_env names for the others (their agents lose them again:
// brokered). It runs after the tasks' masking read the keys (batch.Prepare)
// and before the pre-flight's first probe.
func hideBatchKeys(w io.Writer, quiet bool, tasks []batch.Task, routes map[string]broker.Route, opts *batch.Options) {
	if !slices.ContainsFunc(tasks, brokerOn) {
		return
	}
	held := takeKeys(w, quiet, routes)
	if len(held) == 0 {
		return
	}
	opts.Env = map[string][]string{}
	for _, t := range tasks {
		keys := held
		if brokerOn(t) {
			keys = namedKeys(held, t.Config.CheckEnv)
		}
		opts.Env[t.ID] = append(os.Environ(), keys...)
	}
}

// startBatchBrokers serves the routes and gives every task with the
// broker on its agents through them (opts.Agents, opts.NewAgent). The
// caller closes the brokers once the batch has ended.
func startBatchBrokers(w io.Writer, quiet bool, tasks []batch.Task, routes map[string]broker.Route, opts *batch.Options) (*brokers, error) {
	bs, err := startBrokers(w, quiet, routes)
	if err != nil {
		return nil, &usererr.Error{Msg: err.Error(), Hint: "architect serves its credential broker on 127.0.0.1; or " + batchBrokerOff}
	}
	opts.NewAgent = map[string]func(agent.Config) (agent.Agent, error){}
	for _, t := range tasks {
		if !brokerOn(t) {
			continue
		}
		a, err := bs.wrap(t.Config.AgentConfig())
		if err != nil {
			bs.close()
			return nil, err
		}
		opts.Agents[t.ID], opts.NewAgent[t.ID] = a, bs.wrap
	}
	return bs, nil
}

// brokerOn reports whether task t's keys stay with the brokers.
func brokerOn(t batch.Task) bool { return t.Config.Broker != config.BrokerOff }
