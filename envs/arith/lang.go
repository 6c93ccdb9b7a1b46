package arith

import (
	"fmt"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/envs/pysandbox"
	"github.com/artist-rl/artist/envs/sandbox"
)

// lang is the language a worked solution's code is written in: Go for
// the sandbox (family.SandboxTool), Python for the Python tool
// (family.PythonTool). Both compute the same integers the same way: the
// problems are positive, so Go's truncating / is Python's flooring //,
// and both languages evaluate a chain's *, % and + with the same
// precedence, left to right.
type lang int

const (
	goCode lang = iota
	pythonCode
)

// langOf returns the language of the code a tool of kind runs: Python
// for family.PythonTool, Go for any other kind.
func langOf(kind string) lang {
	if kind == family.PythonTool {
		return pythonCode
	}
	return goCode
}

// String names l as a config's tool.kind does.
func (l lang) String() string {
	if l == pythonCode {
		return family.PythonTool
	}
	return family.SandboxTool
}

// operator writes the Go operator op ("*", "/", "%", "+") in l: integer
// division is // in Python.
func (l lang) operator(op string) string {
	if l == pythonCode && op == "/" {
		return "//"
	}
	return op
}

// binary writes a op b in l, in one canonical spacing: "4821 // 37".
func (l lang) binary(a int, op string, b int) string {
	return fmt.Sprintf("%d %s %d", a, l.operator(op), b)
}

// print returns the snippet of l that prints the value of expr:
// fmt.Println(expr) in Go, print(expr) in Python.
func (l lang) print(expr string) string {
	if l == pythonCode {
		return "print(" + expr + ")"
	}
	return "fmt.Println(" + expr + ")"
}

// open starts a fresh tool that runs l's code with the default limits,
// for writing demonstrations: the library stands for solutions written
// ahead of time, so it does not depend on the run's limits. Python runs
// on the run's interpreter and bubblewrap, py (the defaults where py is
// the zero Runtime). close stops its workers.
func (l lang) open(py pysandbox.Runtime) (tool envs.Tool, close func() error, err error) {
	if l == pythonCode {
		cfg := pysandbox.DefaultConfig()
		if py != (pysandbox.Runtime{}) {
			cfg.Runtime = py
		}
		cfg.Limits.Workers = 1 // the demonstrations run one call at a time
		py, err := pysandbox.New(cfg)
		if err != nil {
			return nil, nil, err
		}
		return py, py.Close, nil
	}
	sb, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		return nil, nil, err
	}
	return sb, sb.Close, nil
}
