package loop

import (
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
)

func TestParseVerdict(t *testing.T) {
	cases := []struct {
		name, msg, verdict, objections string
	}{
		{"approve", "All good.\n<verdict>approve</verdict>", "approve", "All good."},
		{"reject with objections after", "<verdict>reject</verdict>\n- no test for x\n- y is wrong", "reject", "- no test for x\n- y is wrong"},
		{"objections before and after", "Two things.\n<verdict>reject</verdict>\nFix z.", "reject", "Two things.\nFix z."},
		{"case and spaces", "< no >\n<VERDICT> Approve </Verdict>", "approve", "< no >"},
		{"the last verdict wins", "<verdict>approve</verdict> at first, but\n<verdict>reject</verdict> the tests are empty", "reject", "<verdict>approve</verdict> at first, but\nthe tests are empty"},
		{"none", "I think it is fine.", "", "I think it is fine."},
		{"a word that is no verdict", "<verdict>maybe</verdict>", "", "<verdict>maybe</verdict>"},
		{"an unclosed tag", "<verdict>approve", "", "<verdict>approve"},
		{"empty", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			v, o := ParseVerdict(c.msg)
			is.Equal(v, c.verdict)
			is.Equal(o, c.objections)
		})
	}
}

func TestVerdictCheck(t *testing.T) {
	cases := []struct {
		name    string
		o       agent.Outcome
		stopped bool
		passed  bool
		exit    int
		output  string
	}{
		{"approve", agent.Outcome{FinalMessage: "fine <verdict>approve</verdict>"}, false, true, 0, "fine"},
		{"reject", agent.Outcome{FinalMessage: "<verdict>reject</verdict> add a test"}, false, false, 1, "add a test"},
		{"reject without a word", agent.Outcome{FinalMessage: "<verdict>reject</verdict>"}, false, false, 1, "the reviewer rejected the change without saying why"},
		{"no verdict", agent.Outcome{FinalMessage: "hmm"}, false, false, 1, "the reviewer gave no verdict (<verdict>approve</verdict> or <verdict>reject</verdict>); its last words: hmm"},
		{"an approval from a failed run", agent.Outcome{FinalMessage: "<verdict>approve</verdict>", ExitCode: 2, Err: "boom"}, false, false, 2, "the reviewer's run failed (exit status 2), so its verdict is not taken: boom"},
		{"a rejection from a failed run", agent.Outcome{FinalMessage: "<verdict>reject</verdict> no", ExitCode: 2}, false, false, 2, "no"},
		{"timed out", agent.Outcome{FinalMessage: "<verdict>approve</verdict>", TimedOut: true, ExitCode: -1}, false, false, -1, "the reviewer was stopped at its timeout before giving a verdict"},
		{"stopped by the run", agent.Outcome{FinalMessage: "<verdict>approve</verdict>"}, true, false, 1, "the reviewer was stopped before giving a verdict"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			got := verdictCheck("review by x", c.o, c.stopped)
			is.Equal(got.Name, "review by x")
			is.Equal(got.Passed, c.passed)
			is.Equal(got.ExitCode, c.exit)
			is.Equal(got.Output, c.output)
		})
	}
}
