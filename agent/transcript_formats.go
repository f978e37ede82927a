package agent

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The parts of each CLI's stream that only it writes, and the helpers that
// read the JSON every stream shares.

func (t *transcript) codexItem(raw json.RawMessage) {
	var it struct {
		Type             string `json:"type"`
		Text             string `json:"text"`
		Command          string `json:"command"`
		AggregatedOutput string `json:"aggregated_output"`
		ExitCode         *int   `json:"exit_code"`
		Changes          []struct {
			Path, Kind string
		} `json:"changes"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &it) != nil {
		return
	}
	switch it.Type {
	case "agent_message":
		t.block("assistant", it.Text)
	case "reasoning":
		t.block("thinking", it.Text)
	case "command_execution":
		label := "command"
		if it.ExitCode != nil {
			label += fmt.Sprintf(" (exit %d)", *it.ExitCode)
		}
		t.block(label, "$ "+it.Command+"\n"+it.AggregatedOutput)
	case "file_change":
		var lines []string
		for _, c := range it.Changes {
			lines = append(lines, c.Kind+" "+c.Path)
		}
		t.block("file change", strings.Join(lines, "\n"))
	case "error":
		t.block("error", it.Message)
	default:
		if it.Text != "" {
			t.block(it.Type, it.Text)
		}
	}
}

func (t *transcript) opencodeTool(raw json.RawMessage) {
	var p struct {
		Tool  string `json:"tool"`
		State struct {
			Status string          `json:"status"`
			Input  json.RawMessage `json:"input"`
			Output string          `json:"output"`
			Error  string          `json:"error"`
		} `json:"state"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	t.block("tool call "+p.Tool, args(p.State.Input))
	label := "tool result " + p.Tool
	out := p.State.Output
	if p.State.Status != "" && p.State.Status != "completed" {
		label += " (" + p.State.Status + ")"
		out = strings.TrimSpace(out + "\n" + p.State.Error)
	}
	t.block(label, out)
}

// cursorTool is one of Cursor's tool_call events: {"tool_call":
// {"shellToolCall": {"args": …, "result": …}}}.
func (t *transcript) cursorTool(m map[string]json.RawMessage) {
	var calls map[string]struct {
		Args   json.RawMessage `json:"args"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(m["tool_call"], &calls) != nil {
		return
	}
	for name, c := range calls {
		name = strings.TrimSuffix(name, "ToolCall")
		if str(m["subtype"]) == "started" {
			t.block("tool call "+name, args(c.Args))
			continue
		}
		t.block("tool result "+name, args(c.Result))
	}
}

// args prints a tool's arguments: one "key: value" line each, strings as
// they are, other values as JSON.
func args(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return string(raw)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var lines []string
	for _, k := range keys {
		v := str(m[k])
		if v == "" && string(m[k]) != `""` {
			v = string(m[k])
		}
		if strings.Contains(v, "\n") {
			lines = append(lines, k+":\n    "+strings.ReplaceAll(strings.TrimRight(v, "\n"), "\n", "\n    "))
			continue
		}
		lines = append(lines, k+": "+v)
	}
	return strings.Join(lines, "\n")
}

// contentText is a tool result's content: a string, or blocks of text.
func contentText(raw json.RawMessage) string {
	if s := str(raw); s != "" {
		return s
	}
	var blocks []struct {
		Type, Text string
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var out []string
	for _, b := range blocks {
		out = append(out, b.Text)
	}
	return strings.Join(out, "\n")
}

// errorText reads the error objects the CLIs write: a string, {"message"},
// or {"data": {"message"}}.
func errorText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if s := str(raw); s != "" {
		return s
	}
	var e struct {
		Message string `json:"message"`
		Name    string `json:"name"`
		Data    struct {
			Message string `json:"message"`
		} `json:"data"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return string(raw)
	}
	switch {
	case e.Message != "":
		return e.Message
	case e.Data.Message != "":
		return strings.TrimSpace(e.Name + ": " + e.Data.Message)
	}
	return string(raw)
}

func str(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func num(raw json.RawMessage) (float64, bool) {
	var f float64
	err := json.Unmarshal(raw, &f)
	return f, err == nil && raw != nil
}
