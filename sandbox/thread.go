package sandbox

import (
	"encoding/json"
	"errors"
	"os"
	"slices"

	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/sandbox/helper"
)

// Confine is how the checks and the hooks are confined: it sets, in the
// proc.Options a process is run with, how proc starts it.
type Confine = func(*proc.Options)

// maxThreads bounds the confined threads of one Sandbox: past it (a run
// that checks many clean checkouts) a policy's processes start through
// the helper.
const maxThreads = 16

// errThreadEnded: a start was asked of a thread the sandbox has closed.
var errThreadEnded = errors.New("sandbox: the run's sandbox was closed: nothing more is started in it")

// confine is p's Confine. On Linux the process is started on a thread of
// this process that p's rules bind (one per distinct policy, made at its
// first use and ended by Close): its fork and exec run there, so the
// process is confined from its first instruction at the cost of a fork
// and an exec, and p's variables are set in its environment here, as the
// helper would set them. Where that thread cannot be had (another system,
// an error applying the rules to it) the process starts through the
// helper, as the agent does: never unconfined.
func (sb *Sandbox) confine(p Policy) Confine {
	return func(o *proc.Options) {
		th := sb.thread(p)
		if th == nil {
			o.Wrap = p.wrap
			return
		}
		env := o.Env
		if env == nil {
			env = os.Environ()
		}
		o.Env = helper.MergeEnv(slices.Clip(env), p.Env)
		o.Start = th.run
	}
}

// thread is p's confined thread, made now if need be; nil when there is
// none to be had (the helper then starts the process).
func (sb *Sandbox) thread(p Policy) *thread {
	key, err := json.Marshal(p)
	if err != nil {
		return nil
	}
	sb.tmu.Lock()
	defer sb.tmu.Unlock()
	if sb.closed {
		return nil
	}
	if th, ok := sb.threads[string(key)]; ok {
		return th // nil when it could not be made
	}
	if len(sb.threads) >= maxThreads {
		return nil
	}
	if sb.threads == nil {
		sb.threads = map[string]*thread{}
	}
	th, err := newThread(helper.Policy(p))
	if err != nil {
		sb.threadErr = err
		th = nil
	}
	sb.threads[string(key)] = th
	return th
}

// closeThreads ends the confined threads, once the starts they were
// given have been made; a start asked afterwards fails (errThreadEnded).
func (sb *Sandbox) closeThreads() {
	sb.tmu.Lock()
	defer sb.tmu.Unlock()
	sb.closed = true
	for _, th := range sb.threads {
		if th != nil {
			th.close()
		}
	}
	sb.threads = nil
}
