package main

import (
	"context"

	"github.com/artist-rl/artist/envs/pysandbox"
	"github.com/artist-rl/artist/envs/sandbox"
)

// langTool is what `artist sandbox` needs of a code tool: the Go sandbox
// or the Python one.
type langTool interface {
	Run(context.Context, string) sandbox.Outcome
	session() langSession
	lang() string
	Close() error
}

// langSession is one session of a langTool.
type langSession interface {
	Run(context.Context, string) sandbox.Outcome
	Close() error
}

type goTool struct{ *sandbox.Sandbox }

func (t goTool) session() langSession { return t.Session() }
func (goTool) lang() string           { return "go" }

type pyTool struct{ *pysandbox.Sandbox }

func (t pyTool) session() langSession { return t.Session() }
func (pyTool) lang() string           { return "python" }

// openCodeTool starts the code tool of lang ("go" or "python") with the
// limits of cfg; another lang is errUsage.
func openCodeTool(lang string, cfg sandbox.Config) (langTool, error) {
	switch lang {
	case "go":
		s, err := sandbox.New(cfg)
		if err != nil {
			return nil, err
		}
		return goTool{s}, nil
	case "python":
		py := pysandbox.DefaultConfig()
		py.Limits = cfg
		s, err := pysandbox.New(py)
		if err != nil {
			return nil, err
		}
		return pyTool{s}, nil
	}
	return nil, errUsage
}
