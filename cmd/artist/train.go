package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/collective"
	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/trainer"
)

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	defer useUserModels()()
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "YAML config `FILE` (keys not given keep their documented defaults)")
	var overrides sets
	fs.Var(&overrides, "set", "override one config key, e.g. -set grpo.steps=50 (repeatable)")
	force := fs.Bool("force", false, "run even when the memory plan exceeds the memory available (a resume with changed keys is refused all the same)")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the run to `FILE` (for go tool pprof)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	stopProfile, err := startCPUProfile(*profile)
	if err != nil {
		return err
	}
	defer stopProfile()
	if *config == "" {
		fmt.Fprintln(stderr, "artist train: -config FILE is required, e.g. -config configs/tiny-tool-arith.yaml")
		return errUsage
	}
	cfg, err := trainer.Load(*config, overrides)
	if err != nil {
		return err
	}
	if err := needEarlierRun(cfg, *config); err != nil {
		return err
	}
	plan, planErr := trainPlan(cfg) // unreadable model files: the trainer says what is wrong
	comm, err := collective.Open()
	if err != nil {
		return err
	}
	planOut := stderr
	if comm.Rank() != 0 {
		stdout, planOut = io.Discard, io.Discard // rank 0 reports for the job
	}
	if planErr == nil {
		if err := checkPlan(planOut, plan, *force); err != nil {
			comm.Close()
			return err
		}
	}
	fmt.Fprintf(stdout, "view: %s\n", viewCommand(cfg.RunDir))
	stopNote := notifyInterrupt(ctx, stderr)
	defer stopNote()
	sum, err := trainer.TrainOn(ctx, cfg, comm, stdout)
	if err != nil {
		if comm.Size() > 1 {
			// Ranks that are still in a collective call would wait for this
			// one forever: end the whole job.
			comm.Abort(1, fmt.Sprintf("artist train: %v", err))
		}
		if ctx.Err() != nil {
			return interrupted(cfg.RunDir, resumeCommand(os.Args[0], *config, overrides))
		}
		root, src := datadir.Dir("")
		return datadir.Explain(err, root, src)
	}
	if err := comm.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "summary: %s/summary.json: held-out accuracy %.3f -> %.3f, tool calls %.2f -> %.2f, %.0fs\n",
		cfg.RunDir, sum.WarmStart.Accuracy, sum.Final.Accuracy, sum.WarmStart.ToolCalls, sum.Final.ToolCalls, sum.WallS)
	return nil
}

// notifyInterrupt says on w, when ctx ends (Ctrl-C), that the run stops at
// its next safe point. The returned function stops watching.
func notifyInterrupt(ctx context.Context, w io.Writer) func() {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-ctx.Done():
		case <-done:
		}
		if ctx.Err() != nil {
			fmt.Fprintln(w, "\n"+stopReason(context.Cause(ctx)))
		}
	}()
	return func() { close(done); <-finished }
}

// stopReason says why a run stops at its next safe point: Ctrl-C, or a
// SIGTERM, which under mpirun means the job is ending because another
// rank failed (that rank printed why) or the job was stopped.
func stopReason(cause error) string {
	var sc signalCause
	if errors.As(cause, &sc) && sc.sig == syscall.SIGTERM {
		return "terminated (SIGTERM: under mpirun, another rank failed and printed why above, or the job was stopped): stopping at the next safe point"
	}
	return "interrupt: stopping at the next safe point (press Ctrl-C again to quit at once)"
}

// interrupted is the error of a run stopped by an interrupt: it names the
// checkpoint the run resumes from and the command that resumes it.
func interrupted(runDir, resume string) error {
	latest, err := checkpoint.Latest(runDir)
	if err != nil || latest == "" {
		return fmt.Errorf("interrupted before the first checkpoint: the run starts over when trained again:\n  %s", resume)
	}
	return fmt.Errorf("interrupted: the run resumes from its latest checkpoint, %s; to resume:\n  %s", latest, resume)
}

// resumeCommand is the command line that trains the same config again (so
// resumes it): the binary as invoked, or go run for a binary that go run
// built in a temporary folder, and the same flags.
func resumeCommand(bin, config string, overrides sets) string {
	parts := []string{progName(bin), "train", "-config", shellQuote(config)}
	for _, s := range overrides {
		parts = append(parts, "-set", shellQuote(s))
	}
	return strings.Join(parts, " ")
}

// progName is how to run this binary again: as invoked, or go run for a
// binary that go run built in a temporary folder.
func progName(bin string) string {
	if strings.Contains(filepath.ToSlash(bin), "/go-build") {
		return "go run ./cmd/artist"
	}
	return bin
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// path characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// needEarlierRun refuses a config whose init or tokenizer is missing,
// naming the config (beside this one) whose run writes it, when there is
// one: a later stage of a curriculum starts from an earlier stage's
// checkpoint.
func needEarlierRun(cfg trainer.Config, config string) error {
	for _, p := range []struct{ key, path string }{{"init", cfg.Init}, {"tokenizer", cfg.Tokenizer}} {
		if p.path == "" {
			continue
		}
		if _, err := os.Stat(p.path); err == nil {
			continue
		}
		if first := configWriting(filepath.Dir(config), p.path, config); first != "" {
			return fmt.Errorf("%s %s does not exist: it is written by the run of %s; train that first:\n  %s train -config %s", p.key, p.path, first, progName(os.Args[0]), first)
		}
		return nil // the trainer names the missing file
	}
	return nil
}

// configWriting returns the config in dir (other than self) whose
// run_dir holds path, or "".
func configWriting(dir, path, self string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, f := range files {
		if filepath.Clean(f) == filepath.Clean(self) {
			continue
		}
		cfg, err := trainer.Load(f, nil)
		if err != nil || cfg.RunDir == "" {
			continue
		}
		if rel, err := filepath.Rel(filepath.Clean(cfg.RunDir), filepath.Clean(path)); err == nil && !strings.HasPrefix(rel, "..") {
			return f
		}
	}
	return ""
}
