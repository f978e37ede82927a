package proc

import (
	"bytes"
	"testing"
	"time"

	"github.com/matryer/is"
)

// What a run leaves behind that ignores SIGTERM is killed once the grace
// period is over: by cgroup.kill with a run cgroup (TestModes/cgroup), by
// the final sweep without one. Not parallel: another test's run ending
// meanwhile would sweep it too, and hide a run that does not.
func TestLeftoverIgnoringTermIsKilled(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	script := `(trap "" TERM; touch "$D/ready"; exec sleep 1000) >/dev/null 2>&1 &
while [ ! -e "$D/ready" ]; do sleep 0.01; done
echo $!`
	r := Shell(t.Context(), script, Options{Stdout: &out, Env: env("D=" + t.TempDir()), Grace: 200 * time.Millisecond})
	is.Equal(r.ExitCode, 0)
	pid := atoi(t, out.String())
	killLater(t, pid)
	is.True(!alive(pid)) // SIGTERM was ignored: SIGKILL after the grace
}
