package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/preflight"
)

// dryRunLoop prints what `architect loop` would do with cfg and runs
// nothing: the resolved configuration with each value's source, the
// pre-flight results and the first prompt, on stdout (JSON with --json).
// A failed pre-flight is also reported as the error (exit status 2).
func dryRunLoop(ctx context.Context, e *env, cfg config.Config, src config.Sources, warnings []string, path string) error {
	redact, err := redactor(cfg)
	if err != nil {
		return err
	}
	if redact == nil {
		redact = func(s string) string { return s }
	}
	settings := config.Describe(cfg, src)
	var pre preflight.Report
	ag, agentErr := newAgent(cfg)
	if agentErr == nil {
		pre = preflight.Run(ctx, cfg, ag, preflight.Options{})
	} else {
		pre.Items = append(pre.Items, preflight.Item{Check: "agent", Status: preflight.Fail, Detail: agentErr.Error(), Hint: "see `architect loop --help` for the agents"})
	}
	first, promptErr := loop.FirstPrompt(ctx, cfg, redact)
	if cfg.JSON {
		out := struct {
			ConfigFile string             `json:"config_file,omitempty"`
			Config     []config.Setting   `json:"config"`
			Warnings   []string           `json:"warnings,omitempty"`
			Preflight  []preflight.Item   `json:"preflight"`
			Prompt     string             `json:"prompt"`
			PromptErr  string             `json:"prompt_error,omitempty"`
			Workspace  loop.WorkspacePlan `json:"workspace"`
			Judge      []checks.Judge     `json:"judge,omitempty"`
		}{ConfigFile: path, Config: settings, Warnings: warnings, Preflight: pre.Items, Prompt: first, Workspace: pre.Workspace, Judge: pre.Judges}
		if promptErr != nil {
			out.PromptErr = promptErr.Error()
		}
		fmt.Fprintln(e.stdout, redactJSON(out, redact))
		return pre.Err()
	}
	var b strings.Builder
	title := "Configuration"
	if path != "" {
		title += " (" + path + ")"
	}
	fmt.Fprintf(&b, "%s: key, value, where the value came from\n", title)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, s := range settings {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Key, strings.NewReplacer("\t", " ", "\n", `\n`).Replace(s.Text()), s.Source)
	}
	tw.Flush()
	for _, w := range warnings {
		fmt.Fprintf(&b, "  warning: %s\n", w)
	}
	b.WriteString("\nPre-flight:\n")
	for _, it := range pre.Items {
		fmt.Fprintf(&b, "  %-4s  %s: %s\n", it.Status, it.Check, it.Detail)
		if it.Hint != "" && it.Status != preflight.OK {
			fmt.Fprintf(&b, "        hint: %s\n", it.Hint)
		}
	}
	b.WriteString("\nFirst prompt (iteration 1):\n")
	if promptErr != nil {
		fmt.Fprintf(&b, "  (cannot be built: %v)\n", promptErr)
	} else {
		b.WriteString(first)
		if !strings.HasSuffix(first, "\n") {
			b.WriteString("\n")
		}
	}
	b.WriteString("\nNothing was run (--dry-run).\n")
	fmt.Fprint(e.stdout, redact(b.String()))
	return pre.Err()
}

// redactJSON is v as indented JSON with every string in it redacted: a
// pattern applied to the document's text could match its syntax (quotes,
// indentation) and leave something that is not JSON. Objects come out
// with their keys in alphabetical order.
func redactJSON(v any, redact func(string) string) string {
	data, _ := json.Marshal(v)
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // 2^63-1 stays as written
	_ = dec.Decode(&doc)
	var walk func(any) any
	walk = func(x any) any {
		switch x := x.(type) {
		case string:
			return redact(x)
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = walk(x[k])
			}
		}
		return x
	}
	data, _ = json.MarshalIndent(walk(doc), "", "  ")
	return string(data)
}
