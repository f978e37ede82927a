package loop

import (
	"testing"

	"github.com/matryer/is"
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
