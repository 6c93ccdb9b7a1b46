package openai

// TokenizeRequest is the body of POST /tokenize, as vLLM takes it: a
// prompt, or messages (with tools) rendered by the chat template.
// AddSpecialTokens is vLLM's field; artist's tokenizers add none, so
// artist serve accepts it and encodes the same either way.
type TokenizeRequest struct {
	Model               string        `json:"model,omitempty"`
	Prompt              *string       `json:"prompt,omitempty"`
	Messages            []ChatMessage `json:"messages,omitempty"`
	Tools               []Tool        `json:"tools,omitempty"`
	AddGenerationPrompt *bool         `json:"add_generation_prompt,omitempty"`
	AddSpecialTokens    *bool         `json:"add_special_tokens,omitempty"`
	ReturnTokenStrs     bool          `json:"return_token_strs,omitempty"`
}

// TokenizeAnswer is the answer of POST /tokenize.
type TokenizeAnswer struct {
	Count       int      `json:"count"`
	MaxModelLen int      `json:"max_model_len"`
	Tokens      []int    `json:"tokens"`
	TokenStrs   []string `json:"token_strs,omitempty"`
}

// DetokenizeRequest is the body of POST /detokenize, as vLLM takes it.
type DetokenizeRequest struct {
	Model  string `json:"model,omitempty"`
	Tokens []int  `json:"tokens"`
}

// DetokenizeAnswer is the answer of POST /detokenize.
type DetokenizeAnswer struct {
	Prompt string `json:"prompt"`
}
