package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/architect-dev/architect/prompt"
)

// Transcript turns what an agent's CLI printed into a transcript a person
// reads: the messages, each tool call with its arguments, the results and
// the errors, in order. It reads every CLI's JSON stream line by line,
// telling them apart by their shape (Claude Code, Amp and Cursor's
// stream-json; Codex's exec --json; Gemini's stream-json; opencode's
// --format json), and keeps any other line as the text it is, so a plain
// CLI (aider, a command) gets its own output back. Lines cut by the bounds
// on disk are skipped. stderr follows, when there is some. Memory stays
// bounded: stdout is read line by line, and each block keeps at most
// blockLimit bytes.
func Transcript(stdout io.Reader, stderr []byte) string {
	t := &transcript{calls: map[string]string{}}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		t.line(sc.Bytes())
	}
	t.flush()
	if s := strings.TrimSpace(string(stderr)); s != "" {
		t.block("stderr", s)
	}
	return strings.TrimRight(t.b.String(), "\n") + "\n"
}

// blockLimit bounds one block of the transcript (a tool's output, a long
// argument): the whole is in the raw stream next to it.
const blockLimit = 4000

type transcript struct {
	b         strings.Builder
	pending   string // the role of the deltas being gathered
	delta     strings.Builder
	plain     strings.Builder   // plain lines waiting to be written as one block
	plainMore int               // bytes of them past blockLimit, not kept
	calls     map[string]string // tool call id → name, for results that name only the id
}

// block writes one labelled block: "[label]" then the text.
func (t *transcript) block(label, text string) {
	t.flushDelta()
	t.flushPlain()
	text = strings.TrimRight(text, "\n")
	if cut, rest := prompt.Truncate(text, blockLimit); rest > 0 {
		text = cut + fmt.Sprintf("\n… (%d more bytes)", rest)
	}
	t.b.WriteString("[" + label + "]\n")
	if text != "" {
		t.b.WriteString(text + "\n")
	}
	t.b.WriteString("\n")
}

func (t *transcript) flushDelta() {
	if t.pending != "" {
		role, text := t.pending, t.delta.String()
		t.pending = ""
		t.delta.Reset()
		t.block(role, text)
	}
}

func (t *transcript) flushPlain() {
	if t.plain.Len() > 0 || t.plainMore > 0 {
		text := t.plain.String()
		if t.plainMore > 0 {
			text += fmt.Sprintf("\n… (%d more bytes)", t.plainMore)
		}
		t.plain.Reset()
		t.plainMore = 0
		t.block("output", text)
	}
}

// addPlain gathers a plain line, keeping at most blockLimit bytes.
func (t *transcript) addPlain(line []byte) {
	if t.plain.Len()+len(line) > blockLimit {
		t.plainMore += len(line) + 1
		return
	}
	if t.plain.Len() > 0 {
		t.plain.WriteByte('\n')
	}
	t.plain.Write(line)
}

func (t *transcript) flush() { t.flushDelta(); t.flushPlain() }

// addDelta gathers streamed pieces of one message.
func (t *transcript) addDelta(role, text string) {
	if t.pending != role {
		t.flushDelta()
		t.flushPlain()
		t.pending = role
	}
	if t.delta.Len() <= blockLimit { // block cuts it there anyway
		t.delta.WriteString(text)
	}
}

// line adds one line of a CLI's output: a JSON event by its type, any
// other line as the text it is.
func (t *transcript) line(raw []byte) {
	line := bytes.TrimSpace(raw)
	var m map[string]json.RawMessage
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &m) != nil {
		if len(line) > 0 && !(line[0] == '{' && !json.Valid(line)) { // not a JSON line cut short
			t.flushDelta()
			t.addPlain(bytes.TrimRight(raw, "\r"))
		}
		return
	}
	if h := transcriptEvents[str(m["type"])]; h != nil {
		h(t, m, line)
	}
}

// transcriptEvent adds one JSON event (m, read from line) to a transcript.
type transcriptEvent func(t *transcript, m map[string]json.RawMessage, line []byte)

// transcriptEvents are the JSON events a transcript shows, by their type;
// the CLIs share some types and tell them apart by their fields.
var transcriptEvents = map[string]transcriptEvent{
	"system":         (*transcript).session,
	"init":           (*transcript).session,
	"assistant":      func(t *transcript, m map[string]json.RawMessage, _ []byte) { t.message("assistant", m) },
	"user":           func(t *transcript, m map[string]json.RawMessage, _ []byte) { t.message("user", m) },
	"message":        (*transcript).geminiMessage,
	"thinking":       (*transcript).cursorThinking,
	"tool_use":       (*transcript).toolUse,
	"tool_result":    (*transcript).geminiToolResult,
	"tool_call":      func(t *transcript, m map[string]json.RawMessage, _ []byte) { t.cursorTool(m) },
	"text":           (*transcript).opencodeText,
	"step_finish":    (*transcript).opencodeStep,
	"item.completed": func(t *transcript, m map[string]json.RawMessage, _ []byte) { t.codexItem(m["item"]) },
	"turn.completed": (*transcript).codexTurn,
	"turn.failed":    func(t *transcript, m map[string]json.RawMessage, _ []byte) { t.block("error", errorText(m["error"])) },
	"error":          (*transcript).errorEvent,
	"result":         func(t *transcript, m map[string]json.RawMessage, _ []byte) { t.result(m) },
}

// session is the start of a session, which names the model.
func (t *transcript) session(m map[string]json.RawMessage, _ []byte) {
	if model := str(m["model"]); model != "" {
		t.block("session", "model "+model)
	}
}

// geminiMessage is a piece of one of Gemini's streamed messages; the
// user's is the prompt, which is kept on its own.
func (t *transcript) geminiMessage(m map[string]json.RawMessage, _ []byte) {
	role := str(m["role"])
	if role == "user" {
		return
	}
	t.addDelta(role, str(m["content"]))
}

// cursorThinking is a piece of Cursor's streamed thinking.
func (t *transcript) cursorThinking(m map[string]json.RawMessage, _ []byte) {
	t.addDelta("thinking", str(m["text"]))
}

// toolUse is a tool call: opencode's has a part, Gemini's does not.
func (t *transcript) toolUse(m map[string]json.RawMessage, _ []byte) {
	if m["part"] != nil {
		t.opencodeTool(m["part"])
		return
	}
	id := str(m["tool_id"])
	t.calls[id] = str(m["tool_name"])
	t.block("tool call "+str(m["tool_name"]), args(m["parameters"]))
}

// geminiToolResult is the result of one of Gemini's tool calls.
func (t *transcript) geminiToolResult(m map[string]json.RawMessage, _ []byte) {
	label := "tool result"
	if name := t.calls[str(m["tool_id"])]; name != "" {
		label += " " + name
	}
	if st := str(m["status"]); st != "" && st != "success" {
		label += " (" + st + ")"
	}
	out := str(m["output"])
	if e := errorText(m["error"]); e != "" {
		out = strings.TrimSpace(out + "\n" + e)
	}
	t.block(label, out)
}

// opencodeText is opencode's text, in its part.
func (t *transcript) opencodeText(m map[string]json.RawMessage, _ []byte) {
	if m["part"] == nil {
		return
	}
	var p struct{ Text string }
	_ = json.Unmarshal(m["part"], &p)
	t.block("assistant", p.Text)
}

// opencodeStep is the end of one of opencode's steps, with its cost.
func (t *transcript) opencodeStep(m map[string]json.RawMessage, _ []byte) {
	var p struct {
		Reason string
		Cost   float64
	}
	_ = json.Unmarshal(m["part"], &p)
	t.block("step finished", fmt.Sprintf("%s, cost $%.4f", p.Reason, p.Cost))
}

// codexTurn is the end of one of Codex's turns, with its tokens.
func (t *transcript) codexTurn(_ map[string]json.RawMessage, line []byte) {
	var u struct {
		Usage map[string]int64 `json:"usage"`
	}
	_ = json.Unmarshal(line, &u)
	t.block("turn finished", fmt.Sprintf("%d input tokens (%d cached), %d output", u.Usage["input_tokens"], u.Usage["cached_input_tokens"], u.Usage["output_tokens"]))
}

// errorEvent is an error: its message, or its error object.
func (t *transcript) errorEvent(m map[string]json.RawMessage, _ []byte) {
	e := str(m["message"])
	if e == "" {
		e = errorText(m["error"])
	}
	t.block("error", e)
}

// message is a Claude-style message: text, thinking, tool calls (from
// the assistant) and tool results (from the user, that is, the tools).
func (t *transcript) message(role string, m map[string]json.RawMessage) {
	var msg struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(m["message"], &msg) != nil {
		return
	}
	var blocks []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
		IsError   bool            `json:"is_error"`
	}
	if json.Unmarshal(msg.Content, &blocks) != nil {
		if role == "assistant" {
			t.block(role, str(msg.Content))
		}
		return
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if role == "assistant" {
				t.block("assistant", b.Text)
			}
		case "thinking":
			t.block("thinking", b.Thinking)
		case "tool_use":
			t.calls[b.ID] = b.Name
			t.block("tool call "+b.Name, args(b.Input))
		case "tool_result":
			label := "tool result"
			if name := t.calls[b.ToolUseID]; name != "" {
				label += " " + name
			}
			if b.IsError {
				label += " (error)"
			}
			t.block(label, contentText(b.Content))
		}
	}
}

func (t *transcript) result(m map[string]json.RawMessage) {
	var parts []string
	if s := str(m["subtype"]); s != "" {
		parts = append(parts, s)
	}
	if s := str(m["status"]); s != "" {
		parts = append(parts, s)
	}
	if n, ok := num(m["num_turns"]); ok {
		parts = append(parts, fmt.Sprintf("%.0f turns", n))
	}
	if c, ok := num(m["total_cost_usd"]); ok {
		parts = append(parts, fmt.Sprintf("cost $%.4f", c))
	}
	if e := errorText(m["error"]); e != "" {
		parts = append(parts, "error: "+e)
	}
	var isErr bool
	_ = json.Unmarshal(m["is_error"], &isErr)
	label := "result"
	if isErr {
		label = "result (error)"
	}
	t.block(label, strings.Join(parts, ", "))
}
