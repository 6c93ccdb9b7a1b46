package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/envs/toollib"
)

const toolsUsage = "usage: artist tools add -db FILE SOURCE.go... | search -db FILE [-k N] QUERY... | list -db FILE"

// runTools dispatches the tool library subcommands.
func runTools(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, toolsUsage)
		return errUsage
	}
	switch args[0] {
	case "add":
		return runToolsAdd(ctx, args[1:], stdout, stderr)
	case "search":
		return runToolsSearch(args[1:], stdout, stderr)
	case "list":
		return runToolsList(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "artist tools: unknown subcommand %q\n%s\n", args[0], toolsUsage)
	return errUsage
}

// toolsFlags parses the flags of `artist tools NAME`, -db included, and
// opens the library.
func toolsFlags(name string, args []string, stderr io.Writer, extra func(*flag.FlagSet)) (*toollib.Library, []string, error) {
	fs := flag.NewFlagSet("tools "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "", "tool library `FILE` (JSON; created by add when missing)")
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return nil, nil, errUsage
	}
	if *db == "" {
		fmt.Fprintf(stderr, "artist tools %s: -db FILE is required\n", name)
		return nil, nil, errUsage
	}
	lib, err := toollib.Open(*db)
	return lib, fs.Args(), err
}

// runToolsAdd parses each file as one tool, verifies its examples in the
// sandbox and saves the library. Tools added before a failing file are
// saved; the error names the file.
func runToolsAdd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	lib, files, err := toolsFlags("add", args, stderr, nil)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "artist tools add: name at least one SOURCE.go file")
		return errUsage
	}
	s, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		return err
	}
	defer s.Close()
	n := lib.Len()
	var addErr error
	for _, f := range files {
		if addErr = addToolFile(ctx, lib, s, f, stdout); addErr != nil {
			break
		}
	}
	if lib.Len() > n {
		if err := lib.Save(); err != nil {
			return err
		}
	}
	return addErr
}

// addToolFile adds the tool of one file and prints it.
func addToolFile(ctx context.Context, lib *toollib.Library, s *sandbox.Sandbox, file string, stdout io.Writer) error {
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	t, err := toollib.ParseTool(string(src))
	if err == nil {
		err = lib.Add(ctx, s, t)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	fmt.Fprintf(stdout, "added %s (%d cases)\n", t.Signature, len(t.Cases))
	return nil
}

// runToolsSearch prints the listing of the tools that best match the query.
func runToolsSearch(args []string, stdout, stderr io.Writer) error {
	var k int
	lib, query, err := toolsFlags("search", args, stderr, func(fs *flag.FlagSet) {
		fs.IntVar(&k, "k", 3, "most tools to print")
	})
	if err != nil {
		return err
	}
	if len(query) == 0 || k < 1 {
		fmt.Fprintln(stderr, "artist tools search: give a QUERY and -k of at least 1")
		return errUsage
	}
	fmt.Fprint(stdout, toollib.Listing(lib.Search(strings.Join(query, " "), k)))
	return nil
}

// runToolsList prints the listing of every tool.
func runToolsList(args []string, stdout, stderr io.Writer) error {
	lib, rest, err := toolsFlags("list", args, stderr, nil)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "artist tools list: unexpected argument %q\n", rest[0])
		return errUsage
	}
	fmt.Fprint(stdout, toollib.Listing(lib.Tools()))
	return nil
}
