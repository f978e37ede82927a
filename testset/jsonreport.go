package testset

import (
	"encoding/json"
	"path"
	"slices"
	"strings"
)

// JSONReportPath is the JSON report a check command asks jest or vitest
// to write (jest --json --outputFile=PATH, vitest --reporter=json
// --outputFile=PATH; the path may be the next word), or "" when it names
// none.
func JSONReportPath(cmd string) string {
	words := strings.Fields(cmd)
	json := false
	out := ""
	for i, w := range words {
		switch {
		case w == "--json", w == "--reporter=json", w == "--reporter" && i+1 < len(words) && words[i+1] == "json":
			json = true
		case (w == "--outputFile" || w == "--output-file") && i+1 < len(words):
			out = unquote(words[i+1])
		case strings.HasPrefix(w, "--outputFile="), strings.HasPrefix(w, "--output-file="):
			_, v, _ := strings.Cut(w, "=")
			out = unquote(v)
		}
	}
	if !json {
		return ""
	}
	return out
}

// JSONReportRan reads a jest or vitest JSON report and returns the tests
// that ran (passed or failed), as FILE::FULL NAME with the test file's
// base name, sorted. ok is false when the report cannot be read.
func JSONReportRan(data []byte) (names []string, ok bool) {
	var rep struct {
		TestResults []struct {
			Name             string `json:"name"`
			AssertionResults []struct {
				FullName string `json:"fullName"`
				Title    string `json:"title"`
				Status   string `json:"status"`
			} `json:"assertionResults"`
		} `json:"testResults"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || rep.TestResults == nil {
		return nil, false
	}
	for _, f := range rep.TestResults {
		file := path.Base(strings.ReplaceAll(f.Name, `\`, "/"))
		for _, a := range f.AssertionResults {
			if a.Status != "passed" && a.Status != "failed" {
				continue
			}
			name := a.FullName
			if name == "" {
				name = a.Title
			}
			if len(names) < maxRan {
				names = append(names, file+"::"+name)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names), true
}
