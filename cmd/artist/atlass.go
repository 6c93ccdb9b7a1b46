package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/artist-rl/artist/atlass"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout/format"
)

const atlassUsage = `usage: artist atlass -policy URL -model NAME [-db FILE] [-out DIR] [-max-attempts N] [-auto-approve] "task text" | -tasks FILE.jsonl`

// atlassFlags are the flags of artist atlass.
type atlassFlags struct {
	url, model                  string
	db, out, tasks, id          string
	maxAttempts, retries, cands int
	autoApprove                 bool
	temp                        float64
	seed                        int64
	maxTokens, maxCalls         int
	clientFlags
}

func parseAtlassFlags(args []string, stderr io.Writer) (atlassFlags, []string, error) {
	var f atlassFlags
	fs := flag.NewFlagSet("atlass", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.url, "policy", "", "the OpenAI-compatible chat-completions server at `URL` that plays every phase")
	fs.StringVar(&f.model, "model", "", "model `NAME` sent to the server")
	fs.StringVar(&f.db, "db", "tools.db", "the tool database `FILE` (SQLite; created when missing)")
	fs.StringVar(&f.out, "out", "atlass-out", "write one transcript per task (ID.json) into `DIR`")
	fs.StringVar(&f.id, "id", "task", "the `ID` of the task text: its transcript is DIR/ID.json, its tools' provenance names it")
	fs.StringVar(&f.tasks, "tasks", "", "run the tasks of `FILE.jsonl`, one {\"id\": ..., \"task\": ...} per line, instead of the task text")
	fs.IntVar(&f.maxAttempts, "max-attempts", 3, "functions the tool generator may write per needed tool")
	fs.IntVar(&f.retries, "phase-retries", 2, "times a phase is asked again after a reply that does not validate")
	fs.IntVar(&f.cands, "candidates", 5, "stored tools the tool selector sees per needed tool")
	fs.BoolVar(&f.autoApprove, "auto-approve", false, "approve generated tools as soon as they pass their examples, without review (unattended runs)")
	fs.Float64Var(&f.temp, "temperature", 0, "sampling temperature of every phase; 0 is greedy")
	fs.Int64Var(&f.seed, "seed", 1, "sampling seed")
	fs.IntVar(&f.maxTokens, "max-tokens", 2048, "completion tokens per phase request, and the solver's budget over all its requests")
	fs.IntVar(&f.maxCalls, "max-calls", 8, "code tool calls the solver may make per task")
	f.clientFlags.register(fs, "")
	if err := fs.Parse(args); err != nil {
		return f, nil, errUsage
	}
	var problems []string
	if f.url == "" || f.model == "" {
		problems = append(problems, "-policy URL and -model NAME are required")
	}
	if f.id == "" {
		problems = append(problems, "-id must not be empty")
	}
	if (f.tasks == "") == (fs.NArg() == 0) {
		problems = append(problems, "give either the task text or -tasks FILE.jsonl")
	}
	if f.maxAttempts < 1 || f.retries < 0 || f.cands < 1 || f.maxTokens < 1 || f.maxCalls < 0 {
		problems = append(problems, "-max-attempts, -candidates and -max-tokens must be at least 1, -phase-retries and -max-calls at least 0")
	}
	if p := f.readKey(); p != "" {
		problems = append(problems, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(stderr, "artist atlass: %s\n%s\n", strings.Join(problems, "; "), atlassUsage)
		return f, nil, errUsage
	}
	return f, fs.Args(), nil
}

// runAtlass runs the ATLASS pipeline on each task, saves its transcript
// and prints one JSON line per task: id, status, message, answer and the
// transcript's path. A task that ends failed or awaiting approval does
// not stop the batch; a failing server, database or output folder does.
func runAtlass(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, text, err := parseAtlassFlags(args, stderr)
	if err != nil {
		return err
	}
	tasks := []envs.Task{{ID: f.id, Prompt: strings.Join(text, " ")}}
	if f.tasks != "" {
		if tasks, err = readAtlassTasks(f.tasks); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	db, err := toollib.OpenDB(f.db)
	if err != nil {
		return err
	}
	defer db.Close()
	sb, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		return err
	}
	defer sb.Close()
	p := atlassPipeline(f, db, sb)
	if f.autoApprove {
		fmt.Fprintf(stderr, "artist atlass: auto-approving generated tools (-auto-approve): they will be run without review, approved by %q\n", p.Approver)
	}
	for _, t := range tasks {
		tr, runErr := p.Run(ctx, t)
		path, err := tr.Save(f.out)
		if err != nil {
			return err
		}
		line, _ := json.Marshal(map[string]any{"id": t.ID, "status": tr.Status, "message": tr.Message, "answer": tr.Answer, "transcript": path})
		fmt.Fprintf(stdout, "%s\n", line)
		if tr.Status == atlass.AwaitingApproval {
			fmt.Fprintf(stderr, "artist atlass: task %s waits for a review of its tools: artist tools show -db %s ID, then artist tools approve -db %s ID\n", t.ID, f.db, f.db)
		}
		if runErr != nil {
			return fmt.Errorf("task %s: %w (transcript %s)", t.ID, runErr, path)
		}
	}
	return nil
}

// atlassPipeline wires the server, the database and the code tool.
func atlassPipeline(f atlassFlags, db *toollib.DB, code envs.Tool) *atlass.Pipeline {
	client := &openai.Client{URL: f.url, Timeout: f.timeout, Retries: f.requestRetries(), APIKey: f.apiKey}
	rc := atlass.SolverConfig()
	rc.MaxResponseTokens, rc.MaxToolCalls, rc.Temperature = f.maxTokens, f.maxCalls, f.temp
	phaseRetries := f.retries
	if phaseRetries == 0 {
		phaseRetries = -1
	}
	return &atlass.Pipeline{
		Chat: &atlass.ClientChat{Client: client, Model: f.model, Temperature: openai.Ptr(f.temp), MaxTokens: openai.Ptr(f.maxTokens), Seed: openai.Ptr(f.seed)},
		Solver: &atlass.ChatSolver{URL: f.url, Model: f.model, APIKey: f.apiKey, Timeout: f.timeout, Retries: f.requestRetries(),
			Config: rc, Format: format.DefaultFormat(), Seed: f.seed},
		DB: db, Code: code,
		Retries: phaseRetries, MaxAttempts: f.maxAttempts, Candidates: f.cands,
		AutoApprove: f.autoApprove, Approver: "artist atlass -auto-approve", RunID: f.out,
	}
}

// readAtlassTasks reads a JSONL file of {"id", "task"} objects; blank
// lines are skipped. The error names the line and what is wrong with it.
func readAtlassTasks(path string) ([]envs.Task, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tasks []envs.Task
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var rec struct {
			ID   string `json:"id"`
			Task string `json:"task"`
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		err := dec.Decode(&rec)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%s:%d: %v: write one {\"id\": \"...\", \"task\": \"...\"} object per line", path, n, err)
		case rec.ID == "" || strings.TrimSpace(rec.Task) == "":
			return nil, fmt.Errorf("%s:%d: \"id\" and \"task\" must both be non-empty", path, n)
		}
		t := envs.Task{ID: rec.ID, Prompt: rec.Task}
		file := (&atlass.Transcript{Task: t}).File()
		if seen[file] > 0 {
			return nil, fmt.Errorf("%s:%d: id %q names the same transcript (%s) as line %d: give each task its own id", path, n, rec.ID, file, seen[file])
		}
		seen[file] = n
		tasks = append(tasks, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(tasks) == 0 {
		return nil, errors.New(path + ": no tasks")
	}
	return tasks, nil
}
