package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/envs/taubench"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/trainer"
)

// userFlags are the flags of artist eval that choose the simulated
// customer of conversations with one (tau-bench): a served model or one
// of our checkpoints. They become overrides of task.taubench.user, placed
// before the -set ones, so a -set of the same key wins.
type userFlags struct {
	url, model, ckpt string
}

func (u *userFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&u.url, "user-policy", "", "the simulated customer is the model behind the OpenAI-compatible chat-completions server at `URL` (with -user-model)")
	fs.StringVar(&u.model, "user-model", "", "model `NAME` sent to the -user-policy server")
	fs.StringVar(&u.ckpt, "user-checkpoint", "", "the simulated customer is the checkpoint `DIR`, run in this process with its chat template")
}

// sets returns the overrides the flags stand for, or an error naming the
// flags that do not go together.
func (u userFlags) sets() ([]string, error) {
	key := "task." + taubench.FamilyName + ".user."
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	switch {
	case u.url != "" && u.ckpt != "":
		return nil, errors.New("artist eval: -user-policy and -user-checkpoint both choose the customer: give one")
	case (u.url == "") != (u.model == ""):
		return nil, errors.New("artist eval: -user-policy URL and -user-model NAME go together")
	case u.url != "":
		return []string{key + "kind=" + taubench.UserOpenAI, key + "url=" + quote(u.url), key + "model=" + quote(u.model)}, nil
	case u.ckpt != "":
		return []string{key + "kind=" + taubench.UserCheckpoint, key + "checkpoint=" + quote(u.ckpt)}, nil
	}
	return nil, nil
}

// userModel is a checkpoint playing the customer: conversations are
// rendered with its chat template (chat.Load, Qwen2.5's when it ships
// none) and sampled as artist serve samples a chat answer.
type userModel struct {
	policy  rollout.Policy
	tok     *policy.Tokenizer
	tmpl    *chat.Template
	context int
}

var _ taubench.UserModel = (*userModel)(nil)

// useUserModels lets the tau-bench sets opened until the returned
// function is called load task.taubench.user.checkpoint as artist serve
// loads its checkpoint, in this process; the function drops the models.
func useUserModels() (restore func()) {
	return taubench.UseUserModels(taubench.NewUserModels(openUserModel))
}

// openUserModel loads the checkpoint folder dir as a taubench.UserModel.
func openUserModel(dir string) (taubench.UserModel, error) {
	ck, err := checkpoint.Open(dir, os.Stderr)
	if err != nil {
		return nil, err
	}
	tmpl, err := chat.Load(dir)
	if err != nil {
		return nil, err
	}
	return &userModel{policy: trainer.PolicyOf(ck.Model), tok: ck.Tok, tmpl: tmpl, context: ck.Model.Config.MaxPositionEmbeddings}, nil
}

// Chat implements taubench.UserModel: the reply ends at a stop token of
// the tokenizer, or after s.MaxTokens tokens (at most the context's rest).
func (m *userModel) Chat(ctx context.Context, msgs []taubench.ChatMessage, s taubench.Sampling) (string, error) {
	cm := make([]chat.Message, len(msgs))
	for i, x := range msgs {
		cm[i] = chat.Message{Role: x.Role, Content: x.Content}
	}
	text, err := m.tmpl.Render(cm, chat.Options{AddGenerationPrompt: true})
	if err != nil {
		return "", fmt.Errorf("artist: user checkpoint: %w", err)
	}
	ids := m.tok.Encode(text)
	room := m.context - len(ids)
	if room < 1 {
		return "", fmt.Errorf("artist: user checkpoint: the conversation has %d tokens; the model's context holds %d: lower task.taubench.max_replies", len(ids), m.context)
	}
	n := room
	if s.MaxTokens > 0 {
		n = min(s.MaxTokens, room)
	}
	cfg := rollout.CompleteConfig{MaxTokens: n, Temperature: s.Temperature, TopP: 1}
	comp, err := rollout.Complete(ctx, m.policy, m.tok, ids, cfg, rand.New(rand.NewSource(s.Seed)))
	if err != nil {
		return "", fmt.Errorf("artist: user checkpoint: %w", err)
	}
	return comp.Text, nil
}
