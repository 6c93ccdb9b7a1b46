package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/runview"
)

// defaultViewAddr is where artist view listens unless -addr says
// otherwise: loopback only.
const defaultViewAddr = "127.0.0.1:8090"

// viewCommand is the artist view command line for a run folder, as
// artist train prints it; a path with characters a shell reads
// specially is single-quoted.
func viewCommand(runDir string) string {
	if strings.Trim(runDir, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+@%:,=") != "" {
		runDir = "'" + strings.ReplaceAll(runDir, "'", `'\''`) + "'"
	}
	return "artist view " + runDir
}

func runView(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", defaultViewAddr, "`HOST:PORT` to listen on (loopback by default; port 0 picks a free one)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: artist view [-addr HOST:PORT] RUN_DIR...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "artist view: give one or more run folders (a config's run_dir), e.g. artist view runs/tiny-tool-arith")
		return errUsage
	}
	srv, err := runview.New(fs.Args()...)
	if err != nil {
		return err
	}
	srv.SetVerdictLabels(family.VerdictLabels())
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		fmt.Fprintf(stderr, "artist view: warning: %s is not a loopback address: anyone who reaches it can read these run folders\n", ln.Addr())
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "artist view: %d run(s) on http://%s/ (Ctrl-C stops)\n", len(srv.Runs()), ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("view: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("view: %w", err)
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("view: %w", err)
	}
	return nil
}
