package loop

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

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
// .architect/answer.json (`architect answer`, a Telegram reply through
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

// ask is the decision on an iteration whose agent asked a question: the
// run's state keeps it, and the loop waits for the answer before the next
// iteration (awaitAnswer).
func (r *runner) ask(x *iteration) {
	r.st.Question = &runlog.Question{Iteration: x.n, Text: x.rec.Question, AskedAt: stamp(r.deps.Now())}
}

// awaitAnswer waits for the answer to the question the run keeps, if one
// waits: it returns nil once the answer came (or none came and the run
// goes on), or why the run stops.
func (r *runner) awaitAnswer(ctx, runCtx context.Context) *stop {
	q := r.st.Question
	if q == nil || q.Outcome != runlog.QuestionWaiting {
		return nil
	}
	until, err := time.Parse(time.RFC3339, q.Until)
	if err != nil {
		until = r.deps.Now().Add(r.cfg.QuestionTimeout)
		q.Until = stamp(until)
	}
	r.st.Status = runlog.StatusWaiting
	r.save("question")
	r.logEvent("QUESTION", "iteration %d asks: %s", q.Iteration, runlog.Clip(runlog.FirstLine(q.Text), 200))
	r.logf("iteration %d: the agent asks: %q. Waiting until %s for `architect answer \"…\"`", q.Iteration,
		runlog.Clip(runlog.FirstLine(q.Text), 200), until.Local().Format("15:04:05"))
	r.ev.Emit(runlog.Event{Type: runlog.EventQuestion, Iteration: q.Iteration, Text: q.Text, Until: q.Until,
		Seconds: ptr(max(until.Sub(r.deps.Now()), 0).Seconds())})
	for {
		if a, ok := runlog.ReadAnswer(r.ws.dir, q.Iteration); ok {
			q.Outcome, q.Answer, q.Via, q.AnsweredAt = runlog.QuestionAnswered, r.cleanText(strings.TrimSpace(a.Text)), a.Via, stamp(r.deps.Now())
			_ = os.Remove(r.ws.state(runlog.AnswerFile))
			r.st.Status = runlog.StatusRunning
			r.save("answered")
			r.logf("answer received (%s): the prompt of iteration %d carries it", a.Via, len(r.records)+1)
			r.ev.Emit(runlog.Event{Type: runlog.EventAnswered, Iteration: q.Iteration, Text: q.Answer, Reason: a.Via})
			return nil
		}
		if s := r.stopped(ctx, runCtx); s != nil {
			return s // the question still waits: a resume waits for it again
		}
		if s := r.stopAsked(); s != nil {
			return s
		}
		left := until.Sub(r.deps.Now())
		if left <= 0 {
			return r.unanswered(q)
		}
		_ = r.deps.Sleep(runCtx, min(left, pollEvery)) // an end of runCtx is looked at above
	}
}

// unanswered is what follows a question no answer came to in time.
func (r *runner) unanswered(q *runlog.Question) *stop {
	q.Outcome = runlog.QuestionTimedOut
	r.ev.Emit(runlog.Event{Type: runlog.EventQuestionTimeout, Iteration: q.Iteration, Text: q.Text})
	wait := config.FormatDuration(r.cfg.QuestionTimeout)
	if r.cfg.OnQuestionTimeout == config.QuestionContinue {
		r.st.Status = runlog.StatusRunning
		r.save("question_timeout")
		r.logf("no answer to the question of iteration %d within %s: going on, the next prompt says so", q.Iteration, wait)
		return nil
	}
	r.logf("no answer to the question of iteration %d within %s: stopping", q.Iteration, wait)
	return stopAt(runlog.StopQuestion, fmt.Sprintf("no answer to the question of iteration %d within %s; answer it with `architect answer \"…\"`, then continue with `architect loop --resume`", q.Iteration, wait))
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
