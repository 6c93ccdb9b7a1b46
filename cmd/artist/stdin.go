package main

import (
	"context"
	"io"
	"strings"
)

// stdinKey keys the standard input of one invocation in its context.
type stdinKey struct{}

// withStdin returns ctx carrying in as the invocation's standard input:
// main passes os.Stdin, tests their own reader, so no command reads a
// package variable.
func withStdin(ctx context.Context, in io.Reader) context.Context {
	return context.WithValue(ctx, stdinKey{}, in)
}

// stdinOf returns the standard input of the invocation ctx belongs to;
// an empty one when none was given.
func stdinOf(ctx context.Context) io.Reader {
	if in, ok := ctx.Value(stdinKey{}).(io.Reader); ok && in != nil {
		return in
	}
	return strings.NewReader("")
}
