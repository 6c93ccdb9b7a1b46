package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/server"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ckpt := fs.String("checkpoint", "", "checkpoint `DIR` (model.safetensors, config.json, tokenizer.json; tokenizer_config.json and generation_config.json name the stop tokens; chat_template.jinja or tokenizer_config.json's chat_template renders chats)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0 picks a free one)")
	name := fs.String("model", "", "model name reported in answers (default: the checkpoint folder's name)")
	seed := fs.Int64("seed", 1, "seed of the requests that send none")
	maxBody := fs.Int64("max-request-bytes", server.DefaultMaxBody, "refuse request bodies longer than `N` bytes (413)")
	maxTokens := fs.Int("max-tokens", 0, "refuse requests for more than `N` completion tokens (0: the model's context)")
	maxN := fs.Int("max-n", 16, "refuse requests for more than `N` choices")
	force := fs.Bool("force", false, "serve even when the memory plan exceeds the memory available")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *ckpt == "" {
		fmt.Fprintln(stderr, "artist serve: -checkpoint DIR is required")
		return errUsage
	}
	if *maxBody < 1 || *maxTokens < 0 || *maxN < 1 {
		fmt.Fprintln(stderr, "artist serve: -max-request-bytes and -max-n must be >= 1, -max-tokens >= 0")
		return errUsage
	}
	// The address is taken before the model loads, so a bad -addr fails
	// at once rather than after a long load.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "artist serve: -addr %q: %v (want HOST:PORT, e.g. 127.0.0.1:8080, or :0 for a free port)\n", *addr, err)
		return errUsage
	}
	defer ln.Close()
	if dir, err := checkpoint.Resolve(*ckpt, io.Discard); err == nil {
		if err := checkInferencePlan(stderr, dir, *maxN, *force); err != nil {
			return err
		}
	}
	s, err := server.Open(*ckpt, *name, *seed, server.Limits{MaxBody: *maxBody, MaxTokens: *maxTokens, MaxN: *maxN}, stderr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "artist serve: %s on http://%s (%s, %s, %s, %s, %s; rollout control: %s, %s, %s, %s)\n", s.Name(), ln.Addr(),
		openai.ChatPath, openai.CompletionsPath, openai.ModelsPath, openai.TokenizePath, openai.DetokenizePath,
		openai.UpdateWeightsPath, openai.ModelInfoPath, openai.PauseGenerationPath, openai.ContinueGenerationPath)
	return server.Serve(ctx, srv, ln)
}
