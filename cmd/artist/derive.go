package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/envs/bfcl/derive"
	"github.com/artist-rl/artist/envs/mathtask"
	"github.com/artist-rl/artist/internal/atomicfile"
)

const deriveUsage = "usage: artist derive bfcl -src DIR -out DIR | aime25 -src DIR -out FILE | taubench -src DIR -out DIR"

// Where the derivations' inputs come from, for the hints in error messages.
const (
	bfclSourceHint   = "-src must hold the nine BFCL v3 files from ShishirPatil/gorilla berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/; scripts/derive-bfcl-tables.sh and scripts/fetch-data.sh fetch them"
	aime25SourceHint = "-src must hold eth-sri/matharena's data/aime/aime_2025_I and aime_2025_II folders (answers.csv and problems/1.tex to 15.tex); scripts/fetch-data.sh fetches them"
)

// runDerive dispatches the derive subcommands, which rebuild derived
// benchmark files from their upstream sources.
func runDerive(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, deriveUsage)
		return errUsage
	}
	switch args[0] {
	case "bfcl":
		return runDeriveBFCL(args[1:], stdout, stderr)
	case "aime25":
		return runDeriveAIME25(args[1:], stdout, stderr)
	case "taubench":
		return runDeriveTaubench(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "artist derive: unknown subcommand %q\n%s\n", args[0], deriveUsage)
	return errUsage
}

// deriveFlags parses -src and -out, both required.
func deriveFlags(name, outHelp string, args []string, stderr io.Writer) (src, out string, err error) {
	fs := flag.NewFlagSet("derive "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&src, "src", "", "`DIR` holding the upstream source files")
	fs.StringVar(&out, "out", "", outHelp)
	if err := fs.Parse(args); err != nil {
		return "", "", errUsage
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "artist derive %s: unexpected argument %q\n", name, fs.Arg(0))
		return "", "", errUsage
	case src == "" || out == "":
		fmt.Fprintf(stderr, "artist derive %s: -src and -out are required\n%s\n", name, deriveUsage)
		return "", "", errUsage
	}
	return src, out, nil
}

// runDeriveBFCL writes reference_tables.json and
// long_context_extensions.json into -out, each atomically.
func runDeriveBFCL(args []string, stdout, stderr io.Writer) error {
	src, out, err := deriveFlags("bfcl", "output `DIR` (created when missing)", args, stderr)
	if err != nil {
		return err
	}
	for _, name := range derive.SourceFiles() {
		if _, err := os.Stat(filepath.Join(src, name)); err != nil {
			return fmt.Errorf("%w; %s", err, bfclSourceHint)
		}
	}
	tables, ext, err := derive.Tables(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{"reference_tables.json", tables}, {"long_context_extensions.json", ext}} {
		p := filepath.Join(out, f.name)
		if err := atomicfile.WriteFile(p, f.data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", p, len(f.data))
	}
	return nil
}

// runDeriveAIME25 writes the AIME 2025 JSON Lines file -out atomically.
func runDeriveAIME25(args []string, stdout, stderr io.Writer) error {
	src, out, err := deriveFlags("aime25", "output `FILE` (its folder is created when missing)", args, stderr)
	if err != nil {
		return err
	}
	data, err := mathtask.DeriveAIME(src, mathtask.AIME2025Papers)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w; %s", err, aime25SourceHint)
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", out, len(data))
	return nil
}
