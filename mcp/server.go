// Package mcp serves architect over the Model Context Protocol (stdio), so
// that another agent (Claude Code, Codex) can hand a long job to architect
// and check on it: tools to start a loop in a worktree of a repository, get
// its status and report, pause, resume and stop it.
//
// Every tool runs architect's own commands, as the user would: a loop is
// `architect loop --worktree-name NAME -C REPO ... -- TASK` started as a
// child of the server through proc (its own process group, SIGTERM then
// SIGKILL after a grace period, what it leaves ended), the status is
// `architect status --json`, pause and resume and stop are `architect
// pause`, `resume` and `cancel` (the same control files). The task is an
// argument after --, never shell text. When the server ends (its client
// closes stdin, or it is signalled), it stops every loop it started,
// gracefully: each saves its state and can be resumed.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/runlog"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a server.
type Options struct {
	// Self is the architect executable the tools run.
	Self string
	// Version is the server's version, told to the client.
	Version string
	// Grace is how long a loop gets between SIGTERM and SIGKILL when the
	// server stops it; 0 means proc.DefaultGrace.
	Grace time.Duration
}

// Server is the MCP server and the loops it started.
type Server struct {
	opt  Options
	mu   sync.Mutex
	runs map[string]*child // by repository and name
	wg   sync.WaitGroup
}

// child is a loop process the server started.
type child struct {
	cancel context.CancelFunc
	done   chan struct{}
	out    *proc.Tail // the last of its output, for an early failure
	result proc.Result
}

// outputTail bounds what is kept of a loop's own output: its records are
// in the worktree's .architect/, this is for a loop that ends at once.
const outputTail = 16 << 10

// Serve runs the MCP server on in and out until in ends or ctx is done,
// then stops the loops it started and waits for them.
func Serve(ctx context.Context, opt Options, in io.ReadCloser, out io.WriteCloser) error {
	s := &Server{opt: opt, runs: map[string]*child{}}
	srv := s.server()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err := srv.Run(ctx, &sdk.IOTransport{Reader: in, Writer: out})
	s.stopAll()
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

func (s *Server) server() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "architect", Version: s.opt.Version}, &sdk.ServerOptions{
		Instructions: "architect runs a coding agent in a loop, in a git worktree of a repository, until the checks pass and the agent declares completion, or a limit is reached. Start a loop with start_loop, then poll loop_status (every minute or so) until running is false; loop_report says how it ended. The loop's work is on the branch architect/NAME in REPO/.architect-worktrees/NAME.",
	})
	sdk.AddTool(srv, &sdk.Tool{Name: "start_loop", Description: "Start an architect loop in a new git worktree (REPO/.architect-worktrees/NAME, branch architect/NAME): an agent works on the task each iteration until the checks pass and it declares completion, or a limit is reached. Returns at once; poll loop_status."}, s.start)
	sdk.AddTool(srv, &sdk.Tool{Name: "loop_status", Description: "The state of a loop: running or not, status, phase, iteration, the last checks, cost so far (architect status --json)."}, s.status)
	sdk.AddTool(srv, &sdk.Tool{Name: "loop_report", Description: "How a loop ended: success, stop reason, iterations, cost, time, and the path of its HTML report."}, s.report)
	sdk.AddTool(srv, &sdk.Tool{Name: "pause_loop", Description: "Pause a running loop after its current agent run (architect pause)."}, s.control("pause"))
	sdk.AddTool(srv, &sdk.Tool{Name: "resume_loop", Description: "Resume a paused loop (architect resume), or restart a stopped one from its saved state (architect loop --resume)."}, s.resume)
	sdk.AddTool(srv, &sdk.Tool{Name: "answer_question", Description: "Answer the question a loop's agent asked (a loop started with questions: true waits for it, status waiting, its question in loop_status): the next iteration's prompt carries the answer (architect answer)."}, s.answer)
	sdk.AddTool(srv, &sdk.Tool{Name: "stop_loop", Description: "Stop a loop now, gracefully (architect cancel): the agent and the checks are stopped, the state saved; resume_loop can go on with it. Returns once the loop has ended."}, s.stop)
	return srv
}

// Ref names a loop: the repository and the worktree's name.
type Ref struct {
	Repo string `json:"repo" jsonschema:"absolute path of the git repository"`
	Name string `json:"name" jsonschema:"the loop's name: its worktree is REPO/.architect-worktrees/NAME, its branch architect/NAME"`
}

// StartInput is start_loop's input.
type StartInput struct {
	Ref
	Task          string   `json:"task" jsonschema:"what the agent is to do (plain text, passed as data)"`
	Checks        []string `json:"checks,omitempty" jsonschema:"shell commands that must all exit 0 for success (the project's tests, linters); none when a ralph.yaml or preset gives them"`
	Agent         string   `json:"agent,omitempty" jsonschema:"claude, codex, gemini, opencode, aider, amp, cursor or command (default: ralph.yaml's, else claude)"`
	AgentCmd      string   `json:"agent_cmd,omitempty" jsonschema:"a shell command run as the agent, prompt on stdin (selects the command agent)"`
	Model         string   `json:"model,omitempty" jsonschema:"the model passed to the agent"`
	MaxIterations int      `json:"max_iterations,omitempty" jsonschema:"iterations at most (1-1000)"`
	MaxCost       float64  `json:"max_cost,omitempty" jsonschema:"cost limit in USD"`
	MaxTime       string   `json:"max_time,omitempty" jsonschema:"time limit: seconds or a duration like 2h"`
	Questions     bool     `json:"questions,omitempty" jsonschema:"true lets the agent ask a question (architect loop --questions on): the loop then waits for answer_question"`
	Preset        string   `json:"preset,omitempty" jsonschema:"a preset (architect presets lists them): its prompt, checks and limits come first"`
	PresetParams  []string `json:"preset_params,omitempty" jsonschema:"the preset's parameters, as KEY=VALUE"`
}

// StartOutput is what start_loop returns.
type StartOutput struct {
	Repo     string `json:"repo"`
	Name     string `json:"name"`
	Worktree string `json:"worktree"`
	Branch   string `json:"branch"`
}

// StatusOutput is what loop_status returns.
type StatusOutput struct {
	// Running says whether the loop's process runs.
	Running bool `json:"running"`
	// State is `architect status --json`'s output, once the loop has
	// written its state; nil before.
	State map[string]any `json:"state,omitempty"`
	// Exit is the loop process's exit status, once it ended (0 success,
	// 1 no success, 2 usage or configuration, 130 stopped); Output the
	// last of what it printed then.
	Exit   *int   `json:"exit,omitempty"`
	Output string `json:"output,omitempty"`
}

// ReportOutput is what loop_report returns.
type ReportOutput struct {
	Finished        bool     `json:"finished"`
	Success         bool     `json:"success"`
	StopReason      string   `json:"stop_reason,omitempty"`
	StopDetail      string   `json:"stop_detail,omitempty"`
	Iterations      int      `json:"iterations"`
	Cost            *float64 `json:"cost_usd,omitempty"`
	DurationSeconds float64  `json:"duration_seconds"`
	Report          string   `json:"report,omitempty"`
	Branch          string   `json:"branch"`
}

// AnswerInput is answer_question's input.
type AnswerInput struct {
	Ref
	Answer string `json:"answer" jsonschema:"the answer to the agent's question (plain text, passed as data)"`
}

// ControlOutput is what pause, resume, stop and answer_question return.
type ControlOutput struct {
	Message string `json:"message"`
}

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// check validates a Ref: an absolute path to a folder and a name git and
// architect take.
func (r Ref) check() (repo string, err error) {
	if r.Repo == "" || !filepath.IsAbs(r.Repo) {
		return "", fmt.Errorf("repo %q is not an absolute path: give the repository's full path", r.Repo)
	}
	fi, err := os.Stat(r.Repo)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("repo %s is not a folder", r.Repo)
	}
	if !namePattern().MatchString(r.Name) || strings.Contains(r.Name, "..") {
		return "", fmt.Errorf("name %q is not a loop name: 1 to 64 letters, digits, dots, dashes and underscores, starting with a letter or digit", r.Name)
	}
	return filepath.Clean(r.Repo), nil
}

func (r Ref) key(repo string) string { return repo + "\x00" + r.Name }

// worktree is the loop's workspace.
func worktree(repo, name string) string {
	return filepath.Join(repo, ".architect-worktrees", name)
}

// loopArgs turns start_loop's input into `architect loop`'s arguments; the
// task comes last, after --, so that no text of it is read as a flag.
func loopArgs(repo string, in StartInput, extra ...string) []string {
	args := []string{"loop", "-C", repo, "--worktree-name", in.Name, "--plain"}
	for _, c := range in.Checks {
		args = append(args, "--check", c)
	}
	add := func(flag, v string) {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	add("--agent", in.Agent)
	add("--agent-cmd", in.AgentCmd)
	add("--model", in.Model)
	if in.MaxIterations != 0 {
		add("--max-iterations", strconv.Itoa(in.MaxIterations))
	}
	if in.MaxCost != 0 {
		add("--max-cost", strconv.FormatFloat(in.MaxCost, 'f', -1, 64))
	}
	add("--max-time", in.MaxTime)
	if in.Questions {
		add("--questions", "on")
	}
	add("--preset", in.Preset)
	for _, p := range in.PresetParams {
		add("--preset-param", p)
	}
	args = append(args, extra...)
	if in.Task != "" {
		args = append(args, "--", in.Task)
	}
	return args
}

func (s *Server) start(ctx context.Context, _ *sdk.CallToolRequest, in StartInput) (*sdk.CallToolResult, StartOutput, error) {
	repo, err := in.check()
	if err != nil {
		return nil, StartOutput{}, err
	}
	if strings.TrimSpace(in.Task) == "" && in.Preset == "" {
		return nil, StartOutput{}, errors.New("task is empty: say what the agent is to do (or name a preset)")
	}
	if in.MaxIterations < 0 || in.MaxCost < 0 {
		return nil, StartOutput{}, errors.New("max_iterations and max_cost cannot be negative")
	}
	key := in.key(repo)
	s.mu.Lock()
	if c, ok := s.runs[key]; ok && !ended(c) {
		s.mu.Unlock()
		return nil, StartOutput{}, fmt.Errorf("a loop named %s is already running in %s: pick another name, or stop it first", in.Name, repo)
	}
	s.mu.Unlock()
	// The configuration first, as the user would see it with --dry-run:
	// a bad flag, check or preset is said here, not after the start.
	var out bytes.Buffer
	res := proc.Run(ctx, s.opt.Self, loopArgs(repo, in, "--dry-run"), proc.Options{Dir: repo, Stdout: io.Discard, Stderr: &out, Timeout: time.Minute})
	if res.StartErr != nil {
		return nil, StartOutput{}, fmt.Errorf("cannot run %s: %w", s.opt.Self, res.StartErr)
	}
	if res.ExitCode != 0 {
		return nil, StartOutput{}, fmt.Errorf("the loop was not started: %s", strings.TrimSpace(lastLines(out.String(), 20)))
	}
	s.spawn(key, repo, loopArgs(repo, in))
	return nil, StartOutput{Repo: repo, Name: in.Name, Worktree: worktree(repo, in.Name), Branch: "architect/" + in.Name}, nil
}

// spawn starts architect with args as a child loop known by key. The
// server's own context does not end it: stopAll does, through its cancel.
func (s *Server) spawn(key, repo string, args []string) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &child{cancel: cancel, done: make(chan struct{}), out: proc.NewTail(outputTail)}
	s.mu.Lock()
	s.runs[key] = c
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(c.done)
		c.result = proc.Run(ctx, s.opt.Self, args, proc.Options{Dir: repo, Stdout: c.out, Stderr: c.out, Grace: s.opt.Grace})
	}()
}

func ended(c *child) bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// stopAll stops every loop the server started and waits for them.
func (s *Server) stopAll() {
	s.mu.Lock()
	for _, c := range s.runs {
		c.cancel()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// architect runs one of architect's commands and returns its stdout, or
// an error holding what it said on stderr.
func (s *Server) architect(ctx context.Context, dir string, args ...string) (string, error) {
	return s.architectIn(ctx, dir, nil, args...)
}

// architectIn is architect with stdin as the command's standard input.
func (s *Server) architectIn(ctx context.Context, dir string, stdin io.Reader, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	res := proc.Run(ctx, s.opt.Self, args, proc.Options{Dir: dir, Stdin: stdin, Stdout: &out, Stderr: &errOut, Timeout: time.Minute})
	if res.StartErr != nil {
		return "", fmt.Errorf("cannot run %s: %w", s.opt.Self, res.StartErr)
	}
	if res.ExitCode != 0 {
		msg := strings.TrimSpace(lastLines(errOut.String(), 20))
		if msg == "" {
			msg = fmt.Sprintf("architect %s exited with status %d", args[0], res.ExitCode)
		}
		return out.String(), errors.New(msg)
	}
	return out.String(), nil
}

func (s *Server) child(key string) *child {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs[key]
}

func (s *Server) status(ctx context.Context, _ *sdk.CallToolRequest, in Ref) (*sdk.CallToolResult, StatusOutput, error) {
	repo, err := in.check()
	if err != nil {
		return nil, StatusOutput{}, err
	}
	var o StatusOutput
	c := s.child(in.key(repo))
	if c != nil {
		o.Running = !ended(c)
		if !o.Running {
			code := c.result.ExitCode
			o.Exit = &code
			o.Output = lastLines(c.out.String(), 20)
		}
	}
	if _, err := os.Stat(runlog.Path(worktree(repo, in.Name), runlog.StateFile)); err != nil {
		if c == nil {
			return nil, o, fmt.Errorf("no loop named %s in %s: start one with start_loop", in.Name, repo)
		}
		return nil, o, nil // started, no state yet
	}
	text, err := s.architect(ctx, repo, "status", "--json", "-C", repo, "--worktree-name", in.Name)
	if err != nil {
		return nil, o, err
	}
	if err := json.Unmarshal([]byte(text), &o.State); err != nil {
		return nil, o, fmt.Errorf("architect status --json: %w", err)
	}
	if running, ok := o.State["running"].(bool); ok && c == nil {
		o.Running = running // a loop this server did not start
	}
	return nil, o, nil
}

func (s *Server) report(_ context.Context, _ *sdk.CallToolRequest, in Ref) (*sdk.CallToolResult, ReportOutput, error) {
	repo, err := in.check()
	if err != nil {
		return nil, ReportOutput{}, err
	}
	ws := worktree(repo, in.Name)
	o := ReportOutput{Branch: "architect/" + in.Name}
	r, err := runlog.ReadResult(ws)
	if errors.Is(err, os.ErrNotExist) {
		if _, serr := os.Stat(runlog.Path(ws, runlog.StateFile)); serr == nil {
			return nil, o, nil // running: not finished yet
		}
		return nil, o, fmt.Errorf("no loop named %s in %s: start one with start_loop", in.Name, repo)
	}
	if err != nil {
		return nil, o, err
	}
	if c := s.child(in.key(repo)); c != nil && !ended(c) {
		return nil, o, nil // a result from an earlier session of a running loop
	}
	o.Finished, o.Success, o.StopReason, o.StopDetail = true, r.Success, r.StopReason, r.StopDetail
	o.Iterations, o.Cost, o.DurationSeconds = r.TotalIterations, r.TotalCost, r.TotalDuration
	if p := runlog.Path(ws, "report.html"); exists(p) {
		o.Report = p
	}
	return nil, o, nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// control is pause_loop's handler: `architect ACTION` on the loop.
func (s *Server) control(action string) sdk.ToolHandlerFor[Ref, ControlOutput] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in Ref) (*sdk.CallToolResult, ControlOutput, error) {
		repo, err := in.check()
		if err != nil {
			return nil, ControlOutput{}, err
		}
		out, err := s.architect(ctx, repo, action, "-C", repo, "--worktree-name", in.Name)
		return nil, ControlOutput{Message: strings.TrimSpace(out)}, err
	}
}

func (s *Server) resume(ctx context.Context, req *sdk.CallToolRequest, in Ref) (*sdk.CallToolResult, ControlOutput, error) {
	repo, err := in.check()
	if err != nil {
		return nil, ControlOutput{}, err
	}
	if runlog.Running(worktree(repo, in.Name)) {
		return s.control("resume")(ctx, req, in)
	}
	if !exists(runlog.Path(worktree(repo, in.Name), runlog.StateFile)) {
		return nil, ControlOutput{}, fmt.Errorf("no loop named %s in %s: start one with start_loop", in.Name, repo)
	}
	s.spawn(in.key(repo), repo, []string{"loop", "--resume", "-C", repo, "--worktree-name", in.Name, "--plain"})
	return nil, ControlOutput{Message: "restarted the loop " + in.Name + " from its saved state"}, nil
}

// answer is answer_question's handler: `architect answer`, the text on
// its standard input, so that no text of it is read as a flag or a file.
func (s *Server) answer(ctx context.Context, _ *sdk.CallToolRequest, in AnswerInput) (*sdk.CallToolResult, ControlOutput, error) {
	repo, err := in.check()
	if err != nil {
		return nil, ControlOutput{}, err
	}
	if strings.TrimSpace(in.Answer) == "" {
		return nil, ControlOutput{}, errors.New("answer is empty: give the text of the answer")
	}
	out, err := s.architectIn(ctx, repo, strings.NewReader(in.Answer), "answer", "-C", repo, "--worktree-name", in.Name, "-")
	return nil, ControlOutput{Message: strings.TrimSpace(out)}, err
}

// stopWait bounds how long stop_loop waits for a loop to end after asking.
const stopWait = 30 * time.Second

func (s *Server) stop(ctx context.Context, _ *sdk.CallToolRequest, in Ref) (*sdk.CallToolResult, ControlOutput, error) {
	repo, err := in.check()
	if err != nil {
		return nil, ControlOutput{}, err
	}
	c := s.child(in.key(repo))
	msg, asked := "", false
	if runlog.Running(worktree(repo, in.Name)) {
		// The request through the control file, so that the loop records
		// who stopped it.
		out, err := s.architect(ctx, repo, "cancel", "-C", repo, "--worktree-name", in.Name)
		if err != nil && c == nil {
			return nil, ControlOutput{}, err
		}
		msg, asked = strings.TrimSpace(out), err == nil
	}
	if c == nil {
		if msg == "" {
			return nil, ControlOutput{}, fmt.Errorf("no loop named %s is running in %s", in.Name, repo)
		}
		return nil, ControlOutput{Message: msg}, nil
	}
	if !asked {
		c.cancel() // not running yet, or not asked: proc's SIGTERM to its group, the grace, SIGKILL
	}
	select {
	case <-c.done:
	case <-time.After(stopWait):
		c.cancel()
		<-c.done
	case <-ctx.Done():
		c.cancel()
		<-c.done
	}
	return nil, ControlOutput{Message: strings.TrimSpace(msg + fmt.Sprintf("\nthe loop %s ended (exit status %d)", in.Name, c.result.ExitCode))}, nil
}

// lastLines is the last n lines of text.
func lastLines(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
