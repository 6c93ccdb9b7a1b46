package server

import (
	"net/http"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/openai"
)

// tokenizeRequest is the body of POST /tokenize, as vLLM takes it: a
// prompt, or messages (with tools) rendered by the chat template.
type tokenizeRequest struct {
	Model               string               `json:"model,omitempty"`
	Prompt              *string              `json:"prompt,omitempty"`
	Messages            []openai.ChatMessage `json:"messages,omitempty"`
	Tools               []openai.Tool        `json:"tools,omitempty"`
	AddGenerationPrompt *bool                `json:"add_generation_prompt,omitempty"`
	ReturnTokenStrs     bool                 `json:"return_token_strs,omitempty"`
}

// tokenizeAnswer is the answer of POST /tokenize.
type tokenizeAnswer struct {
	Count       int      `json:"count"`
	MaxModelLen int      `json:"max_model_len"`
	Tokens      []int    `json:"tokens"`
	TokenStrs   []string `json:"token_strs,omitempty"`
}

// detokenize bodies, as vLLM's.
type detokenizeRequest struct {
	Model  string `json:"model,omitempty"`
	Tokens []int  `json:"tokens"`
}

type detokenizeAnswer struct {
	Prompt string `json:"prompt"`
}

// tokenize answers POST /tokenize: the token ids of a prompt, or of
// messages rendered as /v1/chat/completions renders them
// (add_generation_prompt defaults to true).
func (s *Server) tokenize(w http.ResponseWriter, r *http.Request) error {
	var in tokenizeRequest
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
	out := tokenizeAnswer{Count: len(ids), MaxModelLen: s.context(), Tokens: ids}
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
	var in detokenizeRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	for i, id := range in.Tokens {
		if id < 0 || id >= s.tok.VocabSize() {
			return badField("tokens", "tokens[%d] = %d is not a token id: the vocabulary has %d", i, id, s.tok.VocabSize())
		}
	}
	writeJSON(w, detokenizeAnswer{Prompt: s.tok.Decode(in.Tokens)})
	return nil
}
