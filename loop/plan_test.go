package loop

import (
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/runlog"
)

// TestAddRoleCost: a role's cost is added to the iteration's and to its
// own field (summed over several planners); an unknown one makes the
// iteration's cost unknown, never $0; tokens add up.
func TestAddRoleCost(t *testing.T) {
	cases := []struct {
		name     string
		cost     *float64
		outs     []agent.Outcome
		wantCost *float64
		wantRole *float64
		wantOut  int64
	}{
		{"one known", ptr(0.1), []agent.Outcome{{Cost: 0.02, CostKnown: true, Usage: agent.Usage{Output: 5}}}, ptr(0.12), ptr(0.02), 5},
		{"two planners", ptr(0.1), []agent.Outcome{{Cost: 0.02, CostKnown: true}, {Cost: 0.03, CostKnown: true, Usage: agent.Usage{Output: 7}}}, ptr(0.15), ptr(0.05), 7},
		{"one unknown", ptr(0.1), []agent.Outcome{{Cost: 0.02, CostKnown: true}, {}}, nil, ptr(0.02), 0},
		{"iteration unknown", nil, []agent.Outcome{{Cost: 0.02, CostKnown: true}}, nil, ptr(0.02), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			it := runlog.Iteration{Cost: c.cost}
			for _, o := range c.outs {
				addRoleCost(&it, o, &it.PlanCost)
			}
			if c.wantCost == nil {
				is.Equal(it.Cost, nil)
			} else {
				is.True(it.Cost != nil)
				is.True(*it.Cost > *c.wantCost-1e-9 && *it.Cost < *c.wantCost+1e-9) // the iteration's cost
			}
			is.True(it.PlanCost != nil)
			is.True(*it.PlanCost > *c.wantRole-1e-9 && *it.PlanCost < *c.wantRole+1e-9) // the role's own
			if c.wantOut > 0 {
				is.Equal(it.Tokens.Output, c.wantOut)
			}
		})
	}
}
