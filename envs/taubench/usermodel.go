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

// UserModels opens the checkpoint folders of user kind checkpoint, each
// folder once, and keeps them until Close. It is safe for concurrent use.
type UserModels struct {
	mu     sync.Mutex
	open   func(dir string) (UserModel, error)
	opened map[string]UserModel
}

// NewUserModels returns the UserModels that loads a folder with open (a
// program that loads checkpoints has one: the artist command's runs a
// checkpoint as artist serve does).
func NewUserModels(open func(dir string) (UserModel, error)) *UserModels {
	return &UserModels{open: open, opened: map[string]UserModel{}}
}

// Open returns the UserModel of folder dir, loading it on first use.
func (u *UserModels) Open(dir string) (UserModel, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	key := filepath.Clean(dir)
	if m, ok := u.opened[key]; ok {
		return m, nil
	}
	m, err := u.open(dir)
	if err != nil {
		return nil, fmt.Errorf("taubench: task.taubench.user.checkpoint %s: %w", dir, err)
	}
	u.opened[key] = m
	return m, nil
}

// Close empties the cache: the models opened so far are dropped (the
// sets that hold one keep it), and a later Open loads again.
func (u *UserModels) Close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	clear(u.opened)
}

// inUse is the UserModels that sets of user kind checkpoint open their
// customer with; nil outside UseUserModels.
var inUse struct {
	sync.Mutex
	u *UserModels
}

// UseUserModels makes u the loader of user kind checkpoint for the sets
// opened until the returned function is called; that restores the one
// before and closes u. A program that loads checkpoints calls it around
// the work that opens sets (artist train and artist eval do):
//
//	defer taubench.UseUserModels(taubench.NewUserModels(open))()
func UseUserModels(u *UserModels) (restore func()) {
	inUse.Lock()
	defer inUse.Unlock()
	prev := inUse.u
	inUse.u = u
	return func() {
		inUse.Lock()
		defer inUse.Unlock()
		inUse.u = prev
		if u != nil {
			u.Close()
		}
	}
}

// openUserModel returns the UserModel of a checkpoint folder.
func openUserModel(dir string) (UserModel, error) {
	inUse.Lock()
	u := inUse.u
	inUse.Unlock()
	if u == nil {
		return nil, errors.New("taubench: task.taubench.user.kind checkpoint needs a program that loads checkpoints (artist train or artist eval); this one set none (UseUserModels)")
	}
	return u.Open(dir)
}
