package starter

import "strings"

// Template returns the starter prompt: PROMPT.md for mode "", or the plan
// or build prompt. They are minimal and direct: less prompt leaves more
// context for the work. Edit them for the project (where
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

// Placeholder is the title of the PROMPT.md template: the line the user
// replaces with the task. While it is there the file is still the
// template, which the pre-flight warns about (IsTemplate).
const Placeholder = "# <your task>"

const promptTemplate = Placeholder + `

Replace the title above with the task in one line (it names the run in the
view, the report and the merge commit) and this paragraph with what to do:
what to build or fix, where the code is, how to tell that it works, what not
to touch.

IMPORTANT:

- do not assume anything is implemented - verify by reading code
- if tests are missing, add them (choose unit/integration/property as appropriate, follow existing patterns)
- run tests after changes; architect also runs the checks in ralph.yaml after every iteration and shows you what failed in the next one
- each iteration is a fresh agent: leave the code working and write down what the next one needs to know
- when everything is done and the checks pass, end your final message with <promise>COMPLETE</promise>
`

// IsTemplate reports whether a specification is still the PROMPT.md
// template: its first line is the placeholder title.
func IsTemplate(spec string) bool {
	first, _, _ := strings.Cut(strings.TrimLeft(spec, "\ufeff \t\r\n"), "\n")
	return strings.TrimSpace(first) == Placeholder
}

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
