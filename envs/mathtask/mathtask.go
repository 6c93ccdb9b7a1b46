// Package mathtask loads math word problems with final answers from JSON
// Lines or JSON list files (MATH-500, AIME, AMC, the MATH train split).
package mathtask

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/artist-rl/artist/envs"
)

// record holds the fields the supported files use for question and answer.
type record struct {
	ID          json.RawMessage `json:"id"`
	UniqueID    string          `json:"unique_id"`
	Problem     string          `json:"problem"`
	Question    string          `json:"question"`
	Answer      json.RawMessage `json:"answer"`
	FinalAnswer json.RawMessage `json:"final_answer"`
}

// Load reads tasks from a .jsonl file (one object per line) or a .json file
// (a list of objects, or JSON Lines). Each object needs a question
// ("problem" or "question") and an answer ("answer" or "final_answer";
// strings or numbers). IDs are the file's ids or "<file>-<line>". Records
// whose answer is null, empty or absent cannot be graded: they are left out and
// counted in skipped.
func Load(path string) (tasks envs.List, skipped int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("mathtask: %w", err)
	}
	var recs []record
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &recs); err != nil {
			return nil, 0, fmt.Errorf("mathtask: %s: %w", path, err)
		}
	} else {
		for i, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var r record
			if err := json.Unmarshal(line, &r); err != nil {
				return nil, 0, fmt.Errorf("mathtask: %s line %d: %w", path, i+1, err)
			}
			recs = append(recs, r)
		}
	}
	base := filepath.Base(path)
	for i, r := range recs {
		if !r.hasAnswer() {
			skipped++
			continue
		}
		t, err := r.task(fmt.Sprintf("%s-%d", base, i))
		if err != nil {
			return nil, 0, fmt.Errorf("mathtask: %s record %d: %w", path, i+1, err)
		}
		tasks = append(tasks, t)
	}
	if len(tasks) == 0 {
		return nil, 0, fmt.Errorf("mathtask: %s holds no problems", path)
	}
	return tasks, skipped, nil
}

func (r record) hasAnswer() bool {
	ok := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" && string(raw) != `""` }
	return ok(r.Answer) || ok(r.FinalAnswer)
}

func (r record) task(fallbackID string) (envs.Task, error) {
	q := r.Problem
	if q == "" {
		q = r.Question
	}
	if q == "" {
		return envs.Task{}, fmt.Errorf("no \"problem\" or \"question\" field")
	}
	raw := r.Answer
	if len(raw) == 0 || string(raw) == "null" {
		raw = r.FinalAnswer
	}
	ans, err := scalar(raw)
	if err != nil {
		return envs.Task{}, fmt.Errorf("answer: %w", err)
	}
	id := r.UniqueID
	if id == "" {
		if s, err := scalar(r.ID); err == nil && s != "" {
			id = s
		} else {
			id = fallbackID
		}
	}
	return envs.Task{ID: id, Prompt: q, Answer: ans}, nil
}

// scalar renders a JSON string or number as text.
func scalar(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", fmt.Errorf("missing (need \"answer\" or \"final_answer\")")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var f json.Number
	if err := json.Unmarshal(raw, &f); err == nil {
		return f.String(), nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil && len(list) > 0 {
		return list[0], nil
	}
	return "", fmt.Errorf("not a string or number: %s", strconv.Quote(string(raw)))
}
