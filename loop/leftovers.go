package loop

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/runlog"
)

// endLeftovers is the second line of defence against a run that outlives
// its architect: before a run or a resume starts anything in the
// workspace, whose lock it now holds, it ends what is left of the last run
// there if that run's architect died without ending it (its state still
// says active), and says so. The first line is the supervisor, which ends
// them as soon as architect dies; this catches what it could not (it was
// killed too, or had no cgroup and missed a process).
func (r *runner) endLeftovers(ws *workspace) {
	st, err := runlog.ReadState(ws.dir)
	if err != nil || !st.Active || len(st.Processes) == 0 {
		return
	}
	var owner proc.Owner
	if json.Unmarshal(st.Processes, &owner) != nil {
		return
	}
	left := proc.EndLeftovers(owner)
	if n := len(left.Ended); n > 0 {
		shown := left.Ended[:min(n, 8)]
		if n > len(shown) {
			shown = append(shown, "…")
		}
		r.warn(fmt.Sprintf("the last run in %s (architect pid %d) was killed and left %d process%s running: ended them (%s)",
			ws.dir, owner.PID, n, map[bool]string{true: "es"}[n != 1], strings.Join(shown, ", ")))
	}
}
