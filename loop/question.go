package loop

import (
	"io"
	"os"
	"strings"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/runlog"
)

// Questions to the person running the loop (questions: on). The agent
// asks by writing .architect/question.md or printing <question>…</question>
// in its final message: an outcome of the attempt step (takeQuestion).
// The iteration is recorded with it, and the decision is to wait for the
// answer (ask): the run's state keeps the question, and before the next
// iteration the loop waits in the waiting status (awaitAnswer) for
// .architect/answer.json (`architect answer`, a Telegram reply or an ntfy message through
// the notifiers), at most question_timeout. The next prompt carries the
// answer, or says none came (on_question_timeout continue); or the run
// stops, resumable, on question_unanswered (stop).

// questionsOn reports whether the agent may ask: questions on, and one
// agent per iteration (a round's candidates do not ask).
func (r *runner) questionsOn() bool {
	return r.cfg.Questions == config.QuestionsOn && !r.candidatesOn()
}

// takeQuestion is the question the agent of x asked, cleaned and masked:
// the question file (read, then removed, whatever it holds), else the
// tag in its final message; "" when it asked none.
func (r *runner) takeQuestion(x *iteration) string {
	path := x.ws.state(runlog.QuestionFile)
	q := ""
	if f, err := os.Open(path); err == nil {
		b, _ := io.ReadAll(io.LimitReader(f, runlog.MaxQuestionBytes))
		f.Close()
		q = string(b)
	}
	_ = os.Remove(path)
	if strings.TrimSpace(q) == "" && !x.o.TimedOut && !x.o.Inactive {
		q = prompt.FindQuestion(x.o.FinalMessage, x.prompt)
	}
	return strings.TrimSpace(r.cleanText(strings.TrimSpace(q)))
}

// answerFor fills the prompt input of the iteration after a question with
// the question and its answer (or that none came), and returns what its
// record keeps: the answer, or "(no answer)"; "" when no question was
// answered or timed out.
func (r *runner) answerFor(in *prompt.Input) string {
	if r.st == nil {
		return "" // the dry run's prompt: no run yet
	}
	q := r.st.Question
	if q == nil || q.Outcome == runlog.QuestionWaiting {
		return ""
	}
	in.Question, in.Answer, in.NoAnswer = q.Text, q.Answer, q.Outcome == runlog.QuestionTimedOut
	if in.NoAnswer {
		return "(no answer)"
	}
	return q.Answer
}

// reopenQuestion, on resume, makes a question the last session stopped
// on wait again (for an answer given meanwhile, or a new wait).
func reopenQuestion(st *runlog.State) {
	if q := st.Question; q != nil && st.StopReason == runlog.StopQuestion && q.Outcome == runlog.QuestionTimedOut {
		q.Outcome, q.Until = runlog.QuestionWaiting, ""
	}
}
