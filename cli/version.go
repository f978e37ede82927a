package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// Version, when set at build time (-ldflags "-X .../cli.Version=v1.2.3"),
// replaces the module version read from the build information.
var Version = ""

// buildInfo is what `architect version` tells.
type buildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Date     string `json:"date,omitempty"` // the commit's time, RFC 3339, UTC
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// readBuildInfo reads the version, commit and date that the go command
// records in the binary: `go install module@version` records the module
// version; `go build` in a git checkout records a pseudo-version (or the
// tag) and the vcs.revision, vcs.time and vcs.modified settings.
func readBuildInfo(bi *debug.BuildInfo, ok bool) buildInfo {
	b := buildInfo{Version: "(devel)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if !ok {
		return b
	}
	if v := bi.Main.Version; v != "" {
		b.Version = v
	}
	if bi.GoVersion != "" {
		b.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.Date = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	// A pseudo-version names the commit's time and hash:
	// v0.0.0-20261124042000-adc01d1abcde(+dirty).
	pseudo := regexp.MustCompile(`-(?:0\.)?(\d{14})-([0-9a-f]{12})(\+dirty)?$`)
	if m := pseudo.FindStringSubmatch(b.Version); m != nil {
		if b.Commit == "" {
			b.Commit = m[2]
		}
		if t, err := time.Parse("20060102150405", m[1]); err == nil && b.Date == "" {
			b.Date = t.UTC().Format(time.RFC3339)
		}
		b.Modified = b.Modified || m[3] != ""
	}
	if Version != "" {
		b.Version = Version
	}
	return b
}

// String is the one-line form: architect VERSION (commit C, DATE, GO).
func (b buildInfo) String() string {
	var parts []string
	if b.Commit != "" {
		c := b.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if b.Modified {
			c += ", modified"
		}
		parts = append(parts, "commit "+c)
	}
	if b.Date != "" {
		parts = append(parts, b.Date)
	}
	parts = append(parts, b.Go+" "+b.Platform)
	return fmt.Sprintf("architect %s (%s)", b.Version, strings.Join(parts, ", "))
}

func printVersion(w io.Writer, asJSON bool) error {
	b := readBuildInfo(debug.ReadBuildInfo())
	if !asJSON {
		_, err := fmt.Fprintln(w, b)
		return err
	}
	data, _ := json.MarshalIndent(b, "", "  ")
	_, err := fmt.Fprintln(w, string(data))
	return err
}

func newVersionCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version",
		Short: "print the version, commit and build date",
		Long: `Prints architect's version, the commit it was built from and that commit's
date, as recorded by the go command (go install, or go build in a git
checkout), and the Go version and platform.`,
		Example: `  architect version
  architect --version
  architect version --json | jq -r .commit`,
		GroupID: groupOther,
		Args:    noArgs("architect version [--json]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return printVersion(e.stdout, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print {version, commit, date, modified, go, platform} as JSON")
	return c
}
