package github

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/architect-dev/architect/textcut"
	"github.com/architect-dev/architect/usererr"
)

// Event is what architect reads of an issues or issue_comment event's
// payload ($GITHUB_EVENT_PATH): data, never code.
type Event struct {
	Name    string // issues or issue_comment
	Action  string // labeled, opened, created, ...
	Issue   Issue
	Label   string // the label added (issues labeled)
	Comment string // the comment's text (issue_comment)
	Actor   string // who triggered it: the commenter, or the sender
}

type payload struct {
	Action string `json:"action"`
	Issue  struct {
		Number      int             `json:"number"`
		Title       string          `json:"title"`
		Body        string          `json:"body"`
		State       string          `json:"state"`
		PullRequest json.RawMessage `json:"pull_request"`
	} `json:"issue"`
	Label struct {
		Name string `json:"name"`
	} `json:"label"`
	Comment struct {
		Body string `json:"body"`
		User struct {
			Login string `json:"login"`
		} `json:"user"`
	} `json:"comment"`
	Sender struct {
		Login string `json:"login"`
	} `json:"sender"`
}

// ReadEvent reads the payload of event name at path ("": told from
// the payload).
func ReadEvent(name, path string) (*Event, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &usererr.Error{Msg: "cannot read the event payload: " + err.Error(), Hint: "run it from a workflow triggered by issues or issue_comment, or pass --issue N", Err: err}
	}
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, &usererr.Error{Msg: fmt.Sprintf("the event payload %s is not JSON: %v", path, err), Hint: "GITHUB_EVENT_PATH should name the runner's event file", Err: err}
	}
	if name == "" { // not said: a payload with a comment is issue_comment's
		name = "issues"
		if p.Comment.User.Login != "" || p.Comment.Body != "" {
			name = "issue_comment"
		}
	}
	ev := &Event{Name: name, Action: p.Action, Label: p.Label.Name, Comment: p.Comment.Body,
		Issue: Issue{Number: p.Issue.Number, Title: p.Issue.Title, Body: p.Issue.Body, State: p.Issue.State,
			IsPR: len(p.Issue.PullRequest) > 0 && string(p.Issue.PullRequest) != "null"}}
	ev.Actor = p.Sender.Login
	if name == "issue_comment" && p.Comment.User.Login != "" {
		ev.Actor = p.Comment.User.Login
	}
	if ev.Issue.Number <= 0 {
		return nil, &usererr.Error{Msg: "the event payload names no issue", Hint: "architect github reads issues and issue_comment events; pass --issue N for another"}
	}
	return ev, nil
}

// CommandWord starts a comment that asks architect to work on an issue.
const CommandWord = "/architect"

// Trigger says whether ev asks for a run, and if not, why not. label is
// the label that starts a run ("" accepts any opened, labeled or reopened
// issue).
func (ev *Event) Trigger(label string) (instructions string, ok bool, why string) {
	if ev.Issue.IsPR {
		return "", false, fmt.Sprintf("#%d is a pull request, not an issue", ev.Issue.Number)
	}
	switch ev.Name {
	case "issues":
		if label != "" {
			if ev.Action != "labeled" || ev.Label != label {
				return "", false, fmt.Sprintf("the issues event (%s) is not the label %q being added", ev.Action, label)
			}
			return "", true, ""
		}
		switch ev.Action {
		case "opened", "labeled", "reopened":
			return "", true, ""
		}
		return "", false, "the issue was " + ev.Action
	case "issue_comment":
		if ev.Action != "created" {
			return "", false, "the comment was " + ev.Action
		}
		text := strings.TrimSpace(ev.Comment)
		if text != CommandWord && !strings.HasPrefix(text, CommandWord+" ") && !strings.HasPrefix(text, CommandWord+"\n") {
			return "", false, "the comment does not start with " + CommandWord
		}
		return strings.TrimSpace(strings.TrimPrefix(text, CommandWord)), true, ""
	}
	return "", false, "the event " + ev.Name + " is neither issues nor issue_comment"
}

// MaxIssueBytes bounds the issue text that becomes the task.
const MaxIssueBytes = 64 << 10

// Task is the agent's task from an issue: its title and body (cut, with
// the cut said, past MaxIssueBytes) and the instructions of the comment
// that asked for the run.
func Task(is Issue, instructions string) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(is.Title))
	b.WriteString("\n\n")
	body, cut := textcut.Head(strings.TrimSpace(is.Body), MaxIssueBytes)
	b.WriteString(body)
	if cut > 0 {
		fmt.Fprintf(&b, "\n\n[architect: the issue's body was cut here: %d more bytes of it are not shown]", cut)
	}
	if instructions != "" {
		ins, cut := textcut.Head(instructions, 8<<10)
		b.WriteString("\n\nAsked in a comment: " + ins)
		if cut > 0 {
			fmt.Fprintf(&b, " [architect: %d more bytes of the comment cut]", cut)
		}
	}
	fmt.Fprintf(&b, "\n\n(GitHub issue #%d)", is.Number)
	return b.String()
}

// Branch is the head branch of the pull request for issue n.
func Branch(n int) string { return fmt.Sprintf("architect/issue-%d", n) }

// WorktreeName is the --worktree-name whose branch is Branch(n).
func WorktreeName(n int) string { return fmt.Sprintf("issue-%d", n) }
