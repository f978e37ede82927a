package starter

// Template returns the starter prompt: PROMPT.md for mode "", or the plan
// or build prompt. Like seed 003's, they are minimal and direct: less
// prompt leaves more context for the work. Edit them for the project (where
// the specs are, how to test by hand, what not to touch).
func Template(mode string) string {
	switch mode {
	case "plan":
		return planTemplate
	case "build":
		return buildTemplate
	}
	return promptTemplate
}

const promptTemplate = `study specs/README.md
study CLAUDE.md and IMPLEMENTATION_PLAN.md (if they exist) and pick the most important incomplete task

IMPORTANT:

- do not assume anything is implemented - verify by reading code
- update IMPLEMENTATION_PLAN.md when the task is done
- if tests are missing, add them (choose unit/integration/property as appropriate, follow existing patterns)
- run tests after changes; architect also runs the checks in ralph.yaml after every iteration and shows you what failed in the next one
- each iteration is a fresh agent: leave the code working and write down what the next one needs to know
- when everything is done and the checks pass, end your final message with <promise>COMPLETE</promise>
`

const planTemplate = `study specs/* (the specifications) and the code

PLAN MODE: do not implement anything.

IMPORTANT:

- compare the specifications with the code: what is missing, incomplete, wrong or untested?
- do not assume anything is implemented - verify by reading code and tests
- write IMPLEMENTATION_PLAN.md: a prioritised checklist ("- [ ] task"), most important first, each task small enough for one iteration, naming the files it touches and how to verify it
- if IMPLEMENTATION_PLAN.md exists, update it: tick finished tasks, add missing ones, drop obsolete ones
- when the plan is complete and up to date, end your final message with <promise>COMPLETE</promise>
`

const buildTemplate = `study specs/* and IMPLEMENTATION_PLAN.md, and pick the most important unfinished task

BUILD MODE: one task per iteration.

IMPORTANT:

- do not assume anything is implemented - verify by reading code
- implement the task; if tests are missing, add them (follow existing patterns)
- run tests after changes; architect also runs the checks in ralph.yaml after every iteration and shows you what failed in the next one
- tick the task in IMPLEMENTATION_PLAN.md and note there what you learned
- do not commit: architect commits your changes after each iteration
- when every task in IMPLEMENTATION_PLAN.md is done and the checks pass, end your final message with <promise>COMPLETE</promise>
`
