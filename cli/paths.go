package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

// checkDir refuses, before any command runs, a -C/--dir that was given
// and is not a folder architect can use, naming the flag: every command
// with such a flag, including those added later, is covered.
func checkDir(cmd *cobra.Command, _ []string) error {
	f := cmd.Flags().Lookup("dir")
	if f == nil || !f.Changed {
		return nil
	}
	dir := f.Value.String()
	problem := ""
	switch fi, err := os.Stat(dir); {
	case dir == "":
		problem = "empty"
	case !utf8.ValidString(dir) || strings.IndexFunc(dir, unicode.IsControl) >= 0:
		problem = "a folder name in UTF-8 without control characters is needed (the run's records name it)"
	case os.IsNotExist(err):
		problem = "no such folder"
	case err != nil:
		problem = unwrapPath(err)
	case !fi.IsDir():
		problem = "not a folder"
	}
	if problem == "" {
		return nil
	}
	return &usererr.Error{Msg: fmt.Sprintf("--dir %s: %s", printable(dir), problem), Hint: "give -C an existing folder (-C . for this one)"}
}

// configPath is the configuration file of `architect loop`: -c's, else
// ARCHITECT_CONFIG's. A -c given empty, or a path that cannot be read as a
// file, is refused naming where it came from; a FIFO would block for ever.
func configPath(cmd *cobra.Command, e *env, flag string) (string, error) {
	path, from := flag, "--config"
	if !cmd.Flags().Changed("config") {
		path, _ = e.lookup("ARCHITECT_CONFIG")
		from = "ARCHITECT_CONFIG"
	} else if path == "" {
		return "", &usererr.Error{Msg: "--config: empty", Hint: "give the YAML file, e.g. -c ralph.yaml, or leave -c out"}
	}
	if path == "" {
		return "", nil
	}
	if p := config.FileProblem(path); p != "" {
		return "", &usererr.Error{Msg: fmt.Sprintf("%s %s: cannot read the configuration file: %s", from, printable(path), p),
			Hint: "give the path of a YAML file (see ralph.yaml.example)"}
	}
	return path, nil
}

// projectConfigFile is the file `architect loop` reads without -c or
// ARCHITECT_CONFIG: the one architect init writes.
const projectConfigFile = "ralph.yaml"

// projectConfig is the project's ralph.yaml in dir when there is one, ""
// when there is none; one that is there but cannot be read as a file is
// refused, naming it.
func projectConfig(dir string) (string, error) {
	path := filepath.Join(dir, projectConfigFile)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if p := config.FileProblem(path); p != "" {
		return "", &usererr.Error{Msg: fmt.Sprintf("%s: cannot read the project's configuration file: %s", printable(path), p),
			Hint: "make it a YAML file (see ralph.yaml.example), or pass --no-config to read none"}
	}
	return path, nil
}
