package taubench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
)

// Sampling is how a UserModel samples one reply.
type Sampling struct {
	Temperature float64 // 0 is greedy
	MaxTokens   int     // at most this many tokens; 0: the rest of the model's context
	Seed        int64   // seeds the reply's random source
}

// UserModel is a language model run in this process that plays the
// customer (user kind checkpoint). Chat renders messages with the
// model's own chat template, with the prefix of a new assistant turn, and
// samples the model's reply as s says: the same messages and s give the
// same reply. It is safe for concurrent use.
type UserModel interface {
	Chat(ctx context.Context, messages []ChatMessage, s Sampling) (string, error)
}

// userModels opens checkpoint folders as UserModels, each folder once.
var userModels struct {
	sync.Mutex
	open   func(dir string) (UserModel, error)
	opened map[string]UserModel
}

// RegisterUserModels sets how the folders of task.taubench.user.checkpoint
// are opened. A program that can load checkpoints registers its loader
// once, at start (the artist command does); each folder is then opened
// once per process and shared by every set that names it. It panics when
// called twice or with nil.
func RegisterUserModels(open func(dir string) (UserModel, error)) {
	userModels.Lock()
	defer userModels.Unlock()
	if open == nil || userModels.open != nil {
		panic("taubench: RegisterUserModels called twice or with nil")
	}
	userModels.open = open
}

// openUserModel returns the UserModel of a checkpoint folder.
func openUserModel(dir string) (UserModel, error) {
	userModels.Lock()
	defer userModels.Unlock()
	if userModels.open == nil {
		return nil, errors.New("taubench: task.taubench.user.kind checkpoint needs a program that loads checkpoints (artist train or artist eval); this one registered none (RegisterUserModels)")
	}
	key := filepath.Clean(dir)
	if m, ok := userModels.opened[key]; ok {
		return m, nil
	}
	m, err := userModels.open(dir)
	if err != nil {
		return nil, fmt.Errorf("taubench: task.taubench.user.checkpoint %s: %w", dir, err)
	}
	if userModels.opened == nil {
		userModels.opened = map[string]UserModel{}
	}
	userModels.opened[key] = m
	return m, nil
}
