package prompt_test

import (
	"fmt"

	"github.com/architect-dev/architect/prompt"
)

// The prompt for iteration 2: the first attempt changed a file, one check
// still fails and the loop restored a file the agent must not touch.
func ExampleBuild() {
	diff, more := prompt.Truncate("--- a/auth.go\n+++ b/auth.go\n@@ -1,2 +1,3 @@\n package auth\n+\n+func Sign() {}\n", prompt.DiffLimit)
	prev := "--- FAIL: TestSign\n    auth_test.go:9: undefined: Sign\nFAIL\n"
	fmt.Print(prompt.Build(prompt.Input{
		Task:          "Add a Sign function that signs JWTs with HS256.",
		Iteration:     2,
		MaxIterations: 25,
		Checks:        []string{"go test ./...", "go vet ./..."},
		Notes:         []string{"Protected files were restored: go.mod."},
		Diff:          diff,
		DiffTruncated: more,
		Failed: []prompt.CheckFailure{{
			Command:    "go test ./...",
			Status:     "exit status 1",
			Output:     "--- FAIL: TestSign\n    auth_test.go:12: Sign() = \"\", want a token\nFAIL\n",
			PrevOutput: &prev,
		}},
		Progress: "## Iteration 1 — FAIL\n- Steps: 8\n- Checks:\n  - go test ./...: FAIL\n  - go vet ./...: PASS\n",
	}))
	// Output:
	// ## Task
	//
	// Add a Sign function that signs JWTs with HS256.
	//
	// ## Iteration Instructions
	//
	// [RALPH LOOP - ITERATION 2/25] Your previous attempt did not complete the task. Continue from where it stopped.
	//
	// This is iteration 2 of 25. Each iteration is a fresh agent with no memory of the ones before: all you have is the files in the workspace, this prompt and the progress file.
	//
	// Your code must pass these checks; each must exit with status 0:
	//
	// - `go test ./...`
	// - `go vet ./...`
	//
	// architect runs them itself after you finish; the loop succeeds only when all of them pass and you have declared completion.
	//
	// - Protected files were restored: go.mod.
	//
	// To declare completion: only when the task is fully done, print `<promise>COMPLETE</promise>` in your final message. Never print it otherwise, not even to quote these instructions.
	//
	// ## Changes from Previous Iterations
	//
	// What earlier iterations changed in the workspace:
	//
	// ```diff
	// --- a/auth.go
	// +++ b/auth.go
	// @@ -1,2 +1,3 @@
	//  package auth
	// +
	// +func Sign() {}
	// ```
	//
	// ## Errors from Previous Iteration
	//
	// ### `go test ./...` (exit status 1)
	//
	// ```
	// --- FAIL: TestSign
	//     auth_test.go:12: Sign() = "", want a token
	// FAIL
	// ```
	//
	// 1 line new, 1 line gone since the previous iteration:
	//
	// ```diff
	// -     auth_test.go:9: undefined: Sign
	// +     auth_test.go:12: Sign() = "", want a token
	// ```
	//
	// ## Accumulated Progress
	//
	// The progress file, as the loop has written it so far:
	//
	// ```markdown
	// ## Iteration 1 — FAIL
	// - Steps: 8
	// - Checks:
	//   - go test ./...: FAIL
	//   - go vet ./...: PASS
	// ```
	//
	// Now continue the task above, from the workspace as it is.
}
