package runlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// An agent asks the person running the loop a question by writing it to
// .architect/question.md in the workspace (QuestionFile) or by printing
// <question>…</question> in its final message. The loop records it in the
// iteration's record, keeps it in state.json (State.Question) and waits,
// in the waiting status, for an answer: `architect answer "…"`, or a
// reply through a notifier (Telegram), both written to
// .architect/answer.json (WriteAnswer). The next iteration's prompt
// carries the answer.

// Files of the questions.
const (
	// QuestionFile is where an agent writes its question (the file is
	// taken and removed once read).
	QuestionFile = "question.md"
	// AnswerFile holds the answer to the question waiting (WriteAnswer).
	AnswerFile = "answer.json"
)

// MaxQuestionBytes bounds a question, MaxAnswerBytes an answer.
const (
	MaxQuestionBytes = 4 << 10
	MaxAnswerBytes   = MaxNoteBytes
)

// What a question waiting for an answer became (Question.Outcome).
const (
	QuestionWaiting  = ""         // no answer yet
	QuestionAnswered = "answered" // Answer holds it
	QuestionTimedOut = "timed_out"
)

// Question is the question an agent asked, as state.json keeps it from
// the moment it is asked until the iteration whose prompt carries its
// answer (or says none came) is recorded.
type Question struct {
	Iteration int    `json:"iteration"` // the iteration that asked it: the question's identity
	Text      string `json:"text"`
	AskedAt   string `json:"asked_at"`
	// Until is when the wait ends without an answer (question_timeout).
	Until   string `json:"until,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Answer  string `json:"answer,omitempty"`
	// Via says where the answer came from: cli (architect answer), telegram.
	Via        string `json:"via,omitempty"`
	AnsweredAt string `json:"answered_at,omitempty"`
}

// Answer is what .architect/answer.json holds: the answer to the question
// of iteration Iteration.
type Answer struct {
	Iteration int    `json:"iteration"`
	Text      string `json:"text"`
	Via       string `json:"via"`
	At        string `json:"at"`
}

// ErrNoQuestion is WriteAnswer's error when no question waits.
var ErrNoQuestion = errors.New("no question is waiting for an answer")

// WriteAnswer answers the question of iteration in workspace with text,
// which came via (cli, telegram). The text is taken as it is (the caller
// cleans and masks it); it must not be empty or longer than
// MaxAnswerBytes. A later answer to the same question replaces an earlier
// one the loop has not read yet.
func WriteAnswer(workspace string, iteration int, text, via string) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("the answer is empty")
	}
	if len(text) > MaxAnswerBytes {
		return fmt.Errorf("the answer is %d bytes, over the %d an answer may hold", len(text), MaxAnswerBytes)
	}
	data, _ := json.Marshal(Answer{Iteration: iteration, Text: text, Via: via, At: Stamp(time.Now())})
	return writeFile(Path(workspace, AnswerFile), append(data, '\n'), 0o600)
}

// ReadAnswer is the answer in workspace to the question of iteration, if
// one is there; an answer to another question, or one that cannot be
// read, is none.
func ReadAnswer(workspace string, iteration int) (Answer, bool) {
	data, err := os.ReadFile(Path(workspace, AnswerFile))
	if err != nil || len(data) > 2*MaxAnswerBytes+1024 {
		return Answer{}, false
	}
	var a Answer
	if json.Unmarshal(data, &a) != nil || a.Iteration != iteration || strings.TrimSpace(a.Text) == "" {
		return Answer{}, false
	}
	return a, true
}
