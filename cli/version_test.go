package cli

import (
	"runtime/debug"
	"testing"

	"github.com/matryer/is"
)

func TestReadBuildInfo(t *testing.T) {
	is := is.New(t)
	// go install module@v1.2.3: the version, no version control settings.
	b := readBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}}, true)
	is.Equal(b.Version, "v1.2.3")
	is.Equal(b.Commit, "")
	is.Equal(b.String()[:len("architect v1.2.3 (go1.26.8 ")], "architect v1.2.3 (go1.26.8 ")

	// go install module@commit: a pseudo-version names the commit and its time.
	b = readBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.1-0.20261124042000-adc01d197ab7"}}, true)
	is.Equal(b.Commit, "adc01d197ab7")
	is.Equal(b.Date, "2026-11-24T04:20:00Z")
	is.True(!b.Modified)

	// go build in a modified checkout: the settings win, +dirty says modified.
	b = readBuildInfo(&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261124042000-adc01d197ab7+dirty"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "adc01d197ab7236b0c9ba6e001733f6cc94d70cb"}, {Key: "vcs.time", Value: "2026-11-24T04:20:00Z"},
	}}, true)
	is.Equal(b.Commit, "adc01d197ab7236b0c9ba6e001733f6cc94d70cb")
	is.True(b.Modified)

	// No build information at all; a version set with -ldflags wins.
	is.Equal(readBuildInfo(nil, false).Version, "(devel)")
	Version = "v9.9.9"
	defer func() { Version = "" }()
	is.Equal(readBuildInfo(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true).Version, "v9.9.9")
}
