package loop

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/testset"
)

// A test report is a witness only when the check wrote it: one left as it
// was before the checks ran (an earlier run's, or one an agent wrote) is
// not read.
func TestReportIsReadOnlyWhenTheCheckWroteIt(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), "report.json")
	const one = `{"testResults":[{"name":"a.test.js","assertionResults":[{"fullName":"adds","status":"passed"}]}]}`
	rep := report{path: path, read: testset.JSONReportRan}
	_, ok := rep.ran()
	is.True(!ok) // none written

	is.NoErr(os.WriteFile(path, []byte(one), 0o644))
	names, ok := rep.ran()
	is.True(ok) // none before, one now: the check wrote it
	is.Equal(names, []string{"a.test.js::adds"})

	rep.before, _ = os.Stat(path)
	_, ok = rep.ran()
	is.True(!ok) // as it was before the checks

	is.NoErr(os.WriteFile(path, []byte(one), 0o644))
	later := time.Now().Add(time.Minute)
	is.NoErr(os.Chtimes(path, later, later))
	_, ok = rep.ran()
	is.True(ok) // written again, the same content
}
