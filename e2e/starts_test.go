//go:build unix

package e2e

import "github.com/architect-dev/architect/internal/stubmodel"

// startRequests returns the requests, among those keep selects, whose
// generation numbers a script recorded as the first of each run, in
// order: what each run was told at its start.
func startRequests(srv *stubmodel.Server, starts []int, keep func(stubmodel.Request) bool) []stubmodel.Request {
	gens := srv.Generations(keep)
	var out []stubmodel.Request
	for _, n := range starts {
		if n < len(gens) {
			out = append(out, gens[n])
		}
	}
	return out
}

// startBodies is startRequests' bodies, of POST requests.
func startBodies(srv *stubmodel.Server, starts []int) []string {
	var out []string
	for _, r := range startRequests(srv, starts, func(r stubmodel.Request) bool { return r.Method == "POST" }) {
		out = append(out, string(r.Body))
	}
	return out
}
