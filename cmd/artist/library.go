package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/envs/library"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/internal/runlog"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
	"github.com/artist-rl/artist/trainer"
)

const libraryUsage = `usage: artist library validate FILE
       artist library add -from RUN_DIR|EVAL_OUT|SAMPLES.jsonl [-verdict correct|incorrect|any] -out FILE
       artist library select -library FILE [-k 3] [-family NAME] [-syntax tags|art] [-show] TASK TEXT...
       artist library export -config FILE [-set key=value ...] [-n N] [-uses-tool] -out FILE`

// runLibrary dispatches the task library subcommands.
func runLibrary(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, libraryUsage)
		return errUsage
	}
	sub := map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		"validate": runLibraryValidate, "add": runLibraryAdd, "select": runLibrarySelect, "export": runLibraryExport,
	}
	if run, ok := sub[args[0]]; ok {
		return run(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "artist library: unknown subcommand %q\n%s\n", args[0], libraryUsage)
	return errUsage
}

// runLibraryValidate re-runs every recorded call of a library file with
// the tool its step names: the sandbox, or a tool kind of the
// demonstration's family opened on the family's default config.
func runLibraryValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("library validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "artist library validate: give one library FILE")
		return errUsage
	}
	lib, err := library.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	tools, closeTools, err := libraryTools(lib)
	if err != nil {
		return err
	}
	defer closeTools()
	if err := library.Validate(ctx, lib, tools); err != nil {
		return err
	}
	calls := 0
	for _, d := range lib.Demos {
		for _, s := range d.Steps {
			if s.Calls() {
				calls++
			}
		}
	}
	fmt.Fprintf(stdout, "%s: %d demonstrations, %d recorded calls re-run, all results match\n", lib.Path, len(lib.Demos), calls)
	return nil
}

// libraryTools is the registry a library is validated against: the
// sandbox, and each other tool kind that a step names and that the
// demonstration's family lists, opened on the family's default config.
// A kind no family of the file offers stays out, so Validate reports it.
func libraryTools(lib *library.Library) (library.Tools, func(), error) {
	sb, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		return nil, nil, err
	}
	tools := library.Tools{family.SandboxTool: sb}
	for _, d := range lib.Demos {
		for _, s := range d.Steps {
			if _, ok := tools[s.Tool]; ok || !s.Calls() {
				continue
			}
			fam, err := family.Lookup(d.Family)
			if err != nil || !slices.Contains(fam.ToolKinds(), s.Tool) {
				continue
			}
			set, err := fam.Open(fam.DefaultConfig(), format.DefaultFormat())
			if err == nil {
				tools[s.Tool], err = set.Tool(s.Tool)
			}
			if err != nil {
				sb.Close()
				return nil, nil, fmt.Errorf("%s:%d: %s: open tool %s of family %s: %w", lib.Path, d.Line, d.ID, s.Tool, d.Family, err)
			}
		}
	}
	return tools, func() { sb.Close() }, nil
}

// runLibrarySelect prints the demonstrations a task would get, one
// "id score family" line each, and with -show the prompt prefix.
func runLibrarySelect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("library select", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("library", "", "library `FILE`")
	k := fs.Int("k", 3, "demonstrations to select")
	fam := fs.String("family", "arith", "task family `NAME` of the task (demonstrations of others fill in)")
	syn := fs.String("syntax", "tags", "with -show, render the demonstrations in tags (the run's format) or art (ART's program syntax)")
	show := fs.Bool("show", false, "print the demonstrations as the prompt holds them, after the list")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *path == "" || fs.NArg() == 0 || *k < 1 {
		fmt.Fprintln(stderr, "artist library select: give -library FILE, -k of at least 1 and the TASK TEXT")
		return errUsage
	}
	syntax, err := library.ParseSyntax(*syn)
	if err != nil {
		return err
	}
	lib, err := library.Load(*path)
	if err != nil {
		return err
	}
	ms, err := library.NewIndex(lib).Select(ctx, *fam, strings.Join(fs.Args(), " "), *k)
	if err != nil {
		return err
	}
	for _, m := range ms {
		fmt.Fprintf(stdout, "%s %.4f %s\n", m.Demo.ID, m.Score, m.Demo.Family)
	}
	if *show {
		fmt.Fprintf(stdout, "\n%s", library.Prefix(ms, format.DefaultFormat(), syntax))
	}
	return nil
}

// runLibraryExport writes the warm-start demonstrations of a config as a
// library file: the demonstrations the run would train on, with the tool
// results the family recorded when it ran the tool.
func runLibraryExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("library export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "run config `FILE`")
	out := fs.String("out", "", "library `FILE` to write (replaced)")
	n := fs.Int("n", 0, "export the first N demonstrations kept (0: all)")
	usesTool := fs.Bool("uses-tool", false, "keep only demonstrations that call the tool")
	var overrides sets
	fs.Var(&overrides, "set", "override one config key (repeatable)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *config == "" || *out == "" || *n < 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "artist library export: give -config FILE and -out FILE (and -n >= 0)")
		return errUsage
	}
	cfg, err := trainer.Load(*config, overrides)
	if err != nil {
		return err
	}
	demos, err := trainer.WarmStartDemos(ctx, cfg)
	if err != nil {
		return err
	}
	var recs []library.Demo
	used := map[string]bool{}
	for _, d := range demos {
		if *usesTool && !d.UsesTool {
			continue
		}
		if used[d.Task.ID] { // the family drew the task twice
			continue
		}
		rec, err := library.FromRollout(d, cfg.Format, cfg.Task.Name, cfg.Tool.Kind)
		if err != nil {
			return err
		}
		rec.Description = describe(rec)
		used[rec.ID] = true
		recs = append(recs, rec)
		if *n > 0 && len(recs) == *n {
			break
		}
	}
	if err := library.Write(*out, recs); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d demonstrations of %s\n", *out, len(recs), cfg.Task.Name)
	return nil
}

// describe is the description a written demonstration starts with,
// for people to refine.
func describe(d library.Demo) string {
	for _, s := range d.Steps {
		if s.Calls() {
			return fmt.Sprintf("%s task, solved with the %s tool", d.Family, s.Tool)
		}
	}
	return fmt.Sprintf("%s task, answered without a tool", d.Family)
}

// runLibraryAdd appends the rollouts of a run's or an eval's samples
// whose verdict matches as new demonstrations.
func runLibraryAdd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("library add", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "a run folder (its samples/*.jsonl), an artist eval -out folder (samples.jsonl) or one samples `FILE`")
	out := fs.String("out", "", "library `FILE` to append to (created when missing)")
	verdict := fs.String("verdict", "correct", "which rollouts to add: correct, incorrect or any")
	tool := fs.String("tool", "", "tool kind of the calls (default: the run's tool.kind, else sandbox)")
	style := fs.String("style", "", "format style of the responses, tags or art (default: the run's format.style, else tags)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *from == "" || *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "artist library add: give -from RUN_DIR|EVAL_OUT|FILE and -out FILE")
		return errUsage
	}
	if *verdict != "correct" && *verdict != "incorrect" && *verdict != "any" {
		fmt.Fprintf(stderr, "artist library add: -verdict %q: want correct, incorrect or any\n", *verdict)
		return errUsage
	}
	files, format, kind, err := sampleSource(*from)
	if err != nil {
		return err
	}
	if *tool != "" {
		kind = *tool
	}
	if *style != "" {
		format.Style = *style
		if err := format.Validate(); err != nil {
			fmt.Fprintf(stderr, "artist library add: -style: %v\n", err)
			return errUsage
		}
	}
	var demos []library.Demo
	seen := map[string]bool{}
	for _, file := range files {
		recs, err := readAnySamples(file)
		if err != nil {
			return err
		}
		for _, s := range recs {
			if *verdict == "correct" && !s.Correct || *verdict == "incorrect" && s.Correct {
				continue
			}
			d, err := s.demo(format, kind)
			if err != nil {
				fmt.Fprintf(stderr, "artist library add: %s: skipped: %v\n", file, err)
				continue
			}
			key := d.Input + "\x00" + library.Render(d, format, library.SyntaxTags)
			if seen[key] {
				continue
			}
			seen[key] = true
			d.Description = describe(d)
			demos = append(demos, d)
		}
	}
	ids, err := library.Append(*out, demos)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: added %d demonstrations\n", *out, len(ids))
	for _, id := range ids {
		fmt.Fprintln(stdout, id)
	}
	return nil
}

// sampleSource resolves -from: the samples files to read, and the format
// and tool kind of the run that wrote them (its config.yaml, when the
// folder holds one; the defaults otherwise).
func sampleSource(from string) (files []string, f format.Format, kind string, err error) {
	f, kind = format.DefaultFormat(), family.SandboxTool
	st, err := os.Stat(from)
	if err != nil {
		return nil, f, kind, err
	}
	if !st.IsDir() {
		return []string{from}, f, kind, nil
	}
	if cfg, err := trainer.Load(filepath.Join(from, "config.yaml"), nil); err == nil {
		f, kind = cfg.Format, cfg.Tool.Kind
	}
	if files, _ = filepath.Glob(filepath.Join(from, "samples", "*.jsonl")); len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join(from, "samples.jsonl"))
	}
	if len(files) == 0 {
		return nil, f, kind, fmt.Errorf("%s holds neither samples/*.jsonl (a run) nor samples.jsonl (artist eval -out)", from)
	}
	return files, f, kind, nil
}

// anySample is one line of a run's samples/<eval>.jsonl (runlog.Sample:
// task, family, segments) or of artist eval's samples.jsonl
// (evalbench.Sample: id, bench, question, response, calls).
type anySample struct {
	Correct bool `json:"correct"`
	// runlog.Sample
	Task     string           `json:"task"`
	Family   string           `json:"family"`
	Segments []runlog.Segment `json:"segments"`
	// evalbench.Sample
	ID       string         `json:"id"`
	Bench    string         `json:"bench"`
	Question string         `json:"question"`
	Response string         `json:"response"`
	Calls    []rollout.Call `json:"calls"`
}

func readAnySamples(path string) ([]anySample, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []anySample
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var s anySample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s:%d: not a sample: %w", path, n, err)
		}
		if s.Segments == nil && s.Bench == "" {
			return nil, fmt.Errorf("%s:%d: neither a run's sample (segments) nor an eval's (bench, response)", path, n)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// demo turns the sample into a demonstration whose calls run with kind.
func (s anySample) demo(f format.Format, kind string) (library.Demo, error) {
	if s.Segments != nil {
		return s.runDemo(f, kind)
	}
	fam := s.Bench
	if b, err := family.BenchmarkFamily(s.Bench); err == nil {
		fam = b.Name()
	}
	r := rollout.Demo{Task: taskOf(s.ID, s.Question), Segments: splitResults(s.Response, f)}
	d, err := library.FromRollout(r, f, fam, kind)
	if err != nil {
		return d, err
	}
	k := 0
	for i := range d.Steps { // the whole results, as the calls recorded them
		if d.Steps[i].Calls() && k < len(s.Calls) {
			d.Steps[i].Result = s.Calls[k].Result.Output
			k++
		}
	}
	return d, nil
}

// splitResults cuts a response into the policy's text and the tool
// results the engine wrote: output blocks in the tags style, runs of
// "#n: " lines in the art style.
func splitResults(response string, f format.Format) []rollout.Segment {
	var segs []rollout.Segment
	if f.ART() {
		for _, line := range strings.SplitAfter(response, "\n") {
			_, _, res := format.ResultLine(strings.TrimSuffix(line, "\n"))
			if n := len(segs); n > 0 && segs[n-1].Tool == res {
				segs[n-1].Text += line // a call line lies between two results
				continue
			}
			segs = append(segs, rollout.Segment{Text: line, Tool: res})
		}
		if len(segs) == 0 || segs[len(segs)-1].Tool {
			segs = append(segs, rollout.Segment{})
		}
		return segs
	}
	rest := response
	for {
		i := strings.Index(rest, format.Open(f.Output))
		j := strings.Index(rest, format.Close(f.Output)+"\n")
		if i < 0 || j < i {
			break
		}
		end := j + len(format.Close(f.Output)) + 1
		segs = append(segs, rollout.Segment{Text: rest[:i]}, rollout.Segment{Text: rest[i:end], Tool: true})
		rest = rest[end:]
	}
	return append(segs, rollout.Segment{Text: rest})
}

// runDemo reads a run's sample: the prompt segment (template removed) is
// the input, the policy's segments and the tool results the program.
func (s anySample) runDemo(f format.Format, kind string) (library.Demo, error) {
	var r rollout.Demo
	for _, seg := range s.Segments {
		switch seg.Kind {
		case runlog.Prompt:
			r.Task = taskOf(s.Task, promptInput(seg.Text, f))
		case runlog.UserTurn:
			return library.Demo{}, fmt.Errorf("task %s: a multi-turn rollout cannot be a demonstration", s.Task)
		case runlog.ToolResult:
			if seg.Truncated {
				return library.Demo{}, fmt.Errorf("task %s: a tool result was cut to the result budget, so it is not the tool's", s.Task)
			}
			r.Segments = append(r.Segments, rollout.Segment{Text: seg.Text, Tool: true})
		default:
			if n := len(r.Segments); n > 0 && !r.Segments[n-1].Tool {
				r.Segments[n-1].Text += seg.Text
				continue
			}
			r.Segments = append(r.Segments, rollout.Segment{Text: seg.Text})
		}
	}
	return library.FromRollout(r, f, s.Family, kind)
}

// userTurn finds a chat template's user turn: a <|name|> marker, the
// role, the rest of its header line, the message, and the next marker
// (ChatML's and Llama 3's layouts alike).
var userTurn = regexp.MustCompile(`(?s)<\|[A-Za-z0-9_]+\|>user[^\n]*\n(.*?)<\|[A-Za-z0-9_]+\|>`)

// promptInput is the question of a rendered prompt: the last user turn of
// a chat template, or the plain prompt without its newline, after the
// demonstrations of ART prompting (library.Prefix) when it has them.
func promptInput(text string, f format.Format) string {
	if m := userTurn.FindAllStringSubmatch(text, -1); len(m) > 0 {
		text = strings.TrimPrefix(m[len(m)-1][1], "\n")
	} else {
		text = strings.TrimSuffix(text, "\n")
	}
	if i := strings.LastIndex(text, format.Close(f.Answer)+"\n\n"); i >= 0 {
		text = text[i+len(format.Close(f.Answer))+2:]
	}
	return text
}

func taskOf(id, prompt string) envs.Task { return envs.Task{ID: id, Prompt: prompt} }

// artChat is a chat adapter with ART prompting: the selected
// demonstrations go before the task in its first user message.
type artChat struct {
	rollout.ChatAdapter
	art *trainer.ArtPrompt
}

// Start implements rollout.ChatAdapter.
func (a artChat) Start(ctx context.Context, t envs.Task) ([]openai.ChatMessage, []openai.Tool, error) {
	t, err := a.art.Apply(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	return a.ChatAdapter.Start(ctx, t)
}
