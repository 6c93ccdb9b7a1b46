package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

// runVersion prints the module version and the VCS revision the binary
// was built from, as the Go toolchain recorded them.
func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if err == nil {
			fmt.Fprintln(stderr, "artist version: takes no arguments")
		}
		return errUsage
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Errorf("the binary carries no build information")
	}
	fmt.Fprintln(stdout, versionLine(info))
	return nil
}

// versionLine is "artist MODULE VERSION" followed by the revision, its
// time and "(modified)" when the working tree had changes, for the fields
// the build recorded ("go run" and "go test" record no VCS fields).
func versionLine(info *debug.BuildInfo) string {
	s := fmt.Sprintf("artist %s %s", info.Main.Path, info.Main.Version)
	vcs := map[string]string{}
	for _, kv := range info.Settings {
		vcs[kv.Key] = kv.Value
	}
	if rev := vcs["vcs.revision"]; rev != "" {
		s += " revision " + rev
		if t := vcs["vcs.time"]; t != "" {
			s += " " + t
		}
		if vcs["vcs.modified"] == "true" {
			s += " (modified)"
		}
	} else {
		s += " (no VCS revision recorded: go run, go test and -buildvcs=false record none; go build -o artist ./cmd/artist in a git checkout does)"
	}
	return s + ", " + info.GoVersion
}
