//go:build unix

package actions_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// installStep runs install.sh (the action's install step) from a copy of
// the action laid out as the runner keeps it, _actions/OWNER/REPO/REF,
// with a curl that records what it was asked for and fails (nothing leaves
// the machine) and no go on PATH. It returns what the step printed and
// the URLs curl was asked for.
func installStep(t *testing.T, dirRef, envRef string) (string, []string, error) {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(root, "_actions", "acme", "architect", dirRef)
	for _, f := range []string{"install.sh", "actions/install.sh", "actions/build.sh"} {
		data, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(src, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(root, "bin")
	log := filepath.Join(root, "curl.log")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	curl := "#!/bin/sh\nfor a; do case $a in http*) echo \"$a\" >>" + log + ";; esac; done\nexit 22\n"
	if err := os.WriteFile(filepath.Join(bin, "curl"), []byte(curl), 0o755); err != nil {
		t.Fatal(err)
	}
	var path []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "go")); err != nil {
			path = append(path, d)
		}
	}
	cmd := exec.Command("bash", filepath.Join(src, "actions", "install.sh"))
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+strings.Join(path, ":"),
		"ARCHITECT_SRC="+src, "ARCHITECT_REF="+envRef, "ARCHITECT_REPOSITORY=", "ARCHITECT_DOWNLOAD_URL=",
		"RUNNER_TOOL_CACHE="+filepath.Join(root, "cache"),
		"GITHUB_OUTPUT="+filepath.Join(root, "output"), "GITHUB_PATH="+filepath.Join(root, "path"))
	out, err := cmd.CombinedOutput()
	data, _ := os.ReadFile(log)
	return string(out), strings.Fields(string(data)), err
}

// The ref is github.action_ref, or the action's folder when the runner
// leaves it empty (composite actions); a release tag downloads from the
// action's own repository, read from its folder; any other ref builds.
func TestInstallStepRef(t *testing.T) {
	for _, tc := range []struct {
		name, dirRef, envRef string
		download             string // the release asked for; "" builds
	}{
		{"tag from the folder", "v1.2.3", "", "https://github.com/acme/architect/releases/download/v1.2.3/checksums.txt"},
		{"tag from action_ref", "ignored", "v1.2.4", "https://github.com/acme/architect/releases/download/v1.2.4/checksums.txt"},
		{"prerelease tag", "v2.0.0-rc.1", "", "https://github.com/acme/architect/releases/download/v2.0.0-rc.1/checksums.txt"},
		{"major tag", "v1", "", ""},
		{"branch", "main", "", ""},
		{"commit", "0123456789abcdef0123456789abcdef01234567", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			out, asked, err := installStep(t, tc.dirRef, tc.envRef)
			is.True(err != nil) // the fake curl fails, and there is no go to build with
			if tc.download == "" {
				is.Equal(len(asked), 0)
				is.True(strings.Contains(out, "is not a release tag (vX.Y.Z): building from source"))
				is.True(strings.Contains(out, "::error title=architect needs Go::"))
				return
			}
			is.Equal(asked, []string{tc.download})
			is.True(strings.Contains(out, "::error title=architect could not be installed::"))
		})
	}
}
