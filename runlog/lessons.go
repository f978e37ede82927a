package runlog

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
)

// LessonsFile, in a round's transcript folder (TranscriptDir), is what
// the round's losing candidates showed (candidates_lessons on), as the
// next round's prompt was given it: a resumed run gives it to the round it
// runs next, as the run would have without the interruption. Written
// before the round's record; absent when there was nothing to say.
const LessonsFile = "lessons.json"

// Lesson is one losing candidate's part of the next round's prompt.
type Lesson struct {
	N        int           `json:"n"`
	Agent    string        `json:"agent"`
	Why      string        `json:"why"`
	DiffStat string        `json:"diff_stat,omitempty"`
	Failing  []LessonCheck `json:"failing,omitempty"`
}

// LessonCheck is a losing candidate's failing check: its command, how it
// ended, and the first lines of its output the kept candidate's did not
// print.
type LessonCheck struct {
	Command string `json:"command"`
	Status  string `json:"status"`
	Output  string `json:"output"`
}

// WriteLessons writes round n's lessons in its transcript folder of the
// state folder stateDir (made if need be).
func WriteLessons(stateDir string, n int, ls []Lesson) error {
	dir := filepath.Join(stateDir, TranscriptDir(n))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return WriteJSONQuick(filepath.Join(dir, LessonsFile), ls)
}

// ReadLessons reads round n's lessons from the state folder stateDir;
// none, with a nil error, when the round left no file.
func ReadLessons(stateDir string, n int) ([]Lesson, error) {
	path := filepath.Join(stateDir, TranscriptDir(n), LessonsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ls []Lesson
	if err := json.Unmarshal(data, &ls); err != nil {
		return nil, Damaged(path, err)
	}
	return ls, nil
}
