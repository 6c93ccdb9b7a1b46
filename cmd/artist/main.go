// Command artist trains language models to reason with tools by
// reinforcement learning (GRPO), evaluates checkpoints and prints rollouts.
//
//	artist train  -config FILE [-set key=value ...]
//	artist eval   -checkpoint DIR [-n K] [-temperature T] [-limit N] [-set key=value ...]
//	artist eval   -checkpoint DIR | -policy URL -model NAME [-api completions|chat]  -bench math500,aime24,aime25,amc23,olympiad [-data DIR] [-out DIR]
//	artist serve  -checkpoint DIR [-addr HOST:PORT] [-max-tokens N] [-max-request-bytes N]
//	artist sample -checkpoint DIR [-n N] [-prompt TEXT] [-temperature T] [-seed S]
//	artist sandbox [-timeout D] [-memory BYTES] [-output BYTES] [-jobs N] [-stateful] FILE...
//	artist grade < answers.jsonl
//	artist tokenize -tokenizer FILE [-decode]
//	artist bfcl replay -category CATEGORY [-id ID] [-data DIR]
//	artist derive bfcl -src DIR -out DIR | aime25 -src DIR -out FILE | taubench -src DIR -out DIR
//	artist taubench replay -env airline|retail [-split S] [-index N] [-data DIR]
//	artist version
//	artist help [COMMAND]
//	artist library validate FILE | add -from DIR -out FILE | select -library FILE [-k N] TEXT | export -config FILE -out FILE
//	artist tools add|import|search|list|pending|show|approve|reject -db FILE ...
//	artist atlass -policy URL -model NAME [-db FILE] [-out DIR] [-auto-approve] TEXT | -tasks FILE.jsonl
//	artist view [-addr HOST:PORT] RUN_DIR...
//	artist bench -checkpoint DIR | -model-config FILE [-batch B] [-seq T] [-new-tokens N] [-grpo]
//	artist plan  -config FILE [-set key=value ...] [-model-config FILE] [-device-memory SIZE]
//	artist bench -serve -checkpoint DIR [-streams 1,32] [-prompt T] [-new-tokens N] [-steps R]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// command is one subcommand: it parses its own flags and wires packages.
type command struct {
	name, usage string
	run         func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"train", "train -config FILE [-set key=value ...] [-force] [-cpuprofile FILE]: warm start, then GRPO; resumes a run folder that holds a checkpoint", runTrain},
	{"eval", "eval -checkpoint DIR | -policy URL -model NAME [-api completions|chat] [-bench LIST] [-n K] [-temperature T] [-limit N] [-prompting art -library FILE -k 3]: held-out or benchmark pass@1, pass@k, maj@k and tool use", runEval},
	{"serve", "serve -checkpoint DIR [-addr HOST:PORT]: serve a checkpoint on an OpenAI-compatible API: /v1/chat/completions (tools), /v1/completions, /v1/models, /tokenize, /detokenize", runServe},
	{"sample", "sample -checkpoint DIR [-n N] [-prompt TEXT]: print rollouts with the tool output marked", runSample},
	{"sandbox", "sandbox [-timeout D] [-memory BYTES] [-output BYTES] [-jobs N] [-stateful] FILE...: run Go programs in the code tool's sandbox, one JSON result per file", runSandbox},
	{"grade", "grade < in.jsonl: grade lines {gold, pred or response} as JSONL lines {extracted, equal}", runGrade},
	{"tokenize", "tokenize -tokenizer FILE [-decode]: a JSON string per stdin line to a JSON array of ids per line, or the reverse", runTokenize},
	{"library", "library validate FILE | add -from RUN_DIR|EVAL_OUT -out FILE [-verdict correct] | select -library FILE [-k 3] TEXT | export -config FILE -out FILE: curate the task library of ART demonstrations", runLibrary},
	{"tools", "tools add|import|search|list|pending|show|approve|reject -db FILE ...: the database of tested Go tools, with human approval", runTools},
	{"atlass", "atlass -policy URL -model NAME [-db FILE] [-out DIR] [-max-attempts N] [-auto-approve] TEXT | -tasks FILE.jsonl: analyze tasks, select or generate the Go tools they need (pending review), then solve with the approved ones", runAtlass},
	{"bfcl", "bfcl replay -category base|miss_func|miss_param|long_context [-id ID] [-data DIR]: replay the BFCL v3 ground truth, one conformance record per entry", runBFCL},
	{"taubench", "taubench replay -env airline|retail [-split test|dev|train] [-index N] [-every K] [-data DIR]: replay the tau-bench gold actions, one conformance record per task", runTauBench},
	{"export", "export -checkpoint DIR -out DIR [-merge]: a checkpoint's LoRA adapters in PEFT's layout (vLLM --enable-lora, PEFT), or with -merge its full weights, adapters merged, in the checkpoint layout artist serve loads", runExport},
	{"init", "init -model-config FILE -tokenizer DIR -out DIR [-layers N] [-max-position N] [-seed S]: a checkpoint of seeded random weights with the shapes of a HuggingFace config.json and another checkpoint's tokenizer, for benchmarks", runInit},
	{"bench", "bench -checkpoint DIR | -model-config FILE [-batch B] [-seq T] [-new-tokens N] [-grpo] [-lora-rank R]: time a training step and KV-cache decoding (or, with -grpo, one GRPO step phase by phase with its peak RSS) on this machine's compute backend, one JSON object", runBench},
	{"plan", "plan -config FILE [-set key=value ...] [-model-config FILE] [-device-memory 80GB]: the memory plan artist train prints and checks, without running; -device-memory plans a GPU run on a device this machine lacks", runPlan},
	{"derive", "derive bfcl -src DIR -out DIR | aime25 -src DIR -out FILE | taubench -src DIR -out DIR: rebuild the derived BFCL tables, AIME 2025 file or tau-bench tasks from upstream sources", runDerive},
	{"view", "view [-addr 127.0.0.1:8090] RUN_DIR...: a local web page of runs: curves, config diff, summary and the rollout browser, refreshed while training", runView},
	{"version", "version: the module version and the VCS revision this binary was built from", runVersion},
	{"help", "help [COMMAND]: this list, or the flags of COMMAND", nil},
}

// errUsage marks misuse; the message has been printed.
var errUsage = errors.New("usage")

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		signal.Stop(sigs) // a second signal ends the process at once
		cancel(signalCause{sig})
	}()
	os.Exit(run(withStdin(ctx, os.Stdin), os.Args[1:], os.Stdout, os.Stderr))
}

// signalCause is the cause of the context of a command that a signal
// stopped: Ctrl-C (SIGINT) or SIGTERM, which mpirun sends to every rank
// when another rank aborts.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return "signal: " + s.sig.String() }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && args[0] == "help" && args[1] != "help" {
			return run(ctx, []string{args[1], "-h"}, stdout, stdout)
		}
		usage(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(ctx, args[1:], stdout, stderr)
			switch {
			case err == nil, errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage) && askedHelp(args[1:]):
				return 0 // the flag package printed the flags
			case errors.Is(err, errUsage):
				return 2
			default:
				fmt.Fprintf(stderr, "artist %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "artist: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: artist COMMAND [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %s\n", c.usage)
	}
	fmt.Fprintln(w, "\nrun 'artist COMMAND -h' for the flags of a command")
}

// askedHelp reports whether args ask for a command's flags (-h, -help or
// --help), which the flag package answers with the usage and an error.
func askedHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help":
			return true
		case "--":
			return false
		}
	}
	return false
}

// sets collects repeated -set key=value flags.
type sets []string

func (s *sets) String() string     { return strings.Join(*s, " ") }
func (s *sets) Set(v string) error { *s = append(*s, v); return nil }
