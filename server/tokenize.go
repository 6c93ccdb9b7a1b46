package server

import (
	"net/http"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/openai"
)

// tokenize answers POST /tokenize: the token ids of a prompt, or of
// messages rendered as /v1/chat/completions renders them
// (add_generation_prompt defaults to true).
func (s *Server) tokenize(w http.ResponseWriter, r *http.Request) error {
	var in openai.TokenizeRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	var text string
	switch {
	case in.Prompt != nil && in.Messages != nil:
		return badField("prompt", "send a prompt or messages, not both")
	case in.Prompt != nil:
		text = *in.Prompt
	default:
		msgs, err := chatMessages(in.Messages)
		if err != nil {
			return err
		}
		tools, _, err := chatTools(in.Tools)
		if err != nil {
			return err
		}
		gen := in.AddGenerationPrompt == nil || *in.AddGenerationPrompt
		if text, err = s.template().Render(msgs, chat.Options{Tools: tools, AddGenerationPrompt: gen}); err != nil {
			return badField("messages", "%v", err)
		}
	}
	ids := s.tok.Encode(text)
	out := openai.TokenizeAnswer{Count: len(ids), MaxModelLen: s.context(), Tokens: ids}
	if in.ReturnTokenStrs {
		out.TokenStrs = make([]string, len(ids))
		for i, id := range ids {
			out.TokenStrs[i] = s.tok.Decode([]int{id})
		}
	}
	if out.Tokens == nil {
		out.Tokens = []int{}
	}
	writeJSON(w, out)
	return nil
}

// detokenize answers POST /detokenize: the text of token ids.
func (s *Server) detokenize(w http.ResponseWriter, r *http.Request) error {
	var in openai.DetokenizeRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	for i, id := range in.Tokens {
		if id < 0 || id >= s.tok.VocabSize() {
			return badField("tokens", "tokens[%d] = %d is not a token id: the vocabulary has %d", i, id, s.tok.VocabSize())
		}
	}
	writeJSON(w, openai.DetokenizeAnswer{Prompt: s.tok.Decode(in.Tokens)})
	return nil
}
