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

	"github.com/artist-rl/artist/policy"
)

// runTokenize encodes (or with -decode, decodes) standard input line by
// line: one JSON string per line in, one JSON array of ids per line out, or
// the reverse. Output line n answers input line n.
func runTokenize(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tokenize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("tokenizer", "", "tokenizer.json `FILE` (HuggingFace byte-level BPE, e.g. Qwen2.5's)")
	decode := fs.Bool("decode", false, "read a JSON array of ids per line and write a JSON string per line")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *path == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "artist tokenize: -tokenizer FILE is required and no arguments are taken; texts come from standard input")
		return errUsage
	}
	tok, err := policy.LoadTokenizer(*path)
	if err != nil {
		return err
	}
	return tokenizeLines(ctx, tok, *decode, stdinOf(ctx), stdout)
}

// tokenizeLines converts each line of in and writes the result to out.
// Bytes of decoded text that are not valid UTF-8 (ids that end inside a
// character) are written as \ufffd, since JSON strings hold valid UTF-8 only.
func tokenizeLines(ctx context.Context, tok *policy.Tokenizer, decode bool, in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 1<<16)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			if err := convertLine(tok, decode, line, enc); err != nil {
				w.Flush()
				return fmt.Errorf("line %d: %w", n, err)
			}
		} else if len(line) > 0 {
			w.Flush()
			return fmt.Errorf("line %d is empty: want one JSON value per line", n)
		}
		if errors.Is(err, io.EOF) {
			return w.Flush()
		}
		if err != nil {
			return err
		}
	}
}

func convertLine(tok *policy.Tokenizer, decode bool, line []byte, enc *json.Encoder) error {
	if decode {
		var ids []int
		if err := json.Unmarshal(line, &ids); err != nil {
			return fmt.Errorf("want a JSON array of token ids: %w", err)
		}
		for i, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				return fmt.Errorf("ids[%d] = %d is not a token id: the vocabulary has ids 0 to %d", i, id, tok.VocabSize()-1)
			}
		}
		return enc.Encode(tok.Decode(ids))
	}
	var text string
	if err := json.Unmarshal(line, &text); err != nil {
		return fmt.Errorf("want a JSON string: %w", err)
	}
	ids := tok.Encode(text)
	if ids == nil {
		ids = []int{}
	}
	return enc.Encode(ids)
}
