package arith

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"

	"github.com/artist-rl/artist/envs"
)

// MaxSteps is the longest chain: a product, a remainder, a sum.
const MaxSteps = 3

// ChainTemplates is the number of wordings of each step count.
const ChainTemplates = 2

// ChainNouns is the number of nouns a chain can count.
const ChainNouns = 6

// chainTemplates holds each step count's sentences as format strings over
// (A, B, C, D, noun); a template names only the operands its steps use.
var chainTemplates = [MaxSteps][ChainTemplates]string{
	{
		"%[2]d boxes hold %[1]d %[5]s each. How many %[5]s?",
		"Each of %[2]d bags has %[1]d %[5]s. Total %[5]s?",
	},
	{
		"%[2]d boxes hold %[1]d %[5]s each. Packed %[3]d per bag, how many left over?",
		"Each of %[2]d bags has %[1]d %[5]s. In rows of %[3]d, how many spare?",
	},
	{
		"%[2]d boxes hold %[1]d %[5]s each. Packed %[3]d per bag, the rest plus %[4]d is?",
		"Each of %[2]d bags has %[1]d %[5]s. In rows of %[3]d, the spare plus %[4]d is?",
	},
}

// chainNouns are the counted things; Chain.Noun indexes this list.
var chainNouns = [ChainNouns]string{"nails", "coins", "beads", "eggs", "seeds", "cards"}

// Chain is one multi-step word problem of Steps operations on the running
// value: A * B, then % C, then + D. Operands a chain does not use are 0.
// Template is in [0, ChainTemplates) and Noun in [0, ChainNouns).
type Chain struct {
	Steps      int
	A, B, C, D int
	Template   int
	Noun       int
}

// Digits bounds the decimal digits of the first factor A. B, C and D
// always have two digits, and C is at least 11, so a remainder is never
// trivial.
type Digits struct {
	Min int `yaml:"min"`
	Max int `yaml:"max"`
}

// Prompt returns the problem's sentence. It panics if Steps, Template or
// Noun is out of range.
func (p Chain) Prompt() string {
	return fmt.Sprintf(chainTemplates[p.Steps-1][p.Template], p.A, p.B, p.C, p.D, chainNouns[p.Noun])
}

// step is one operation on a chain's running value: "* 37", "% 64", "+ 25".
type step struct {
	op      string
	operand int
}

// steps lists the operations after the first operand A.
func (p Chain) steps() []step {
	all := []step{{"*", p.B}, {"%", p.C}, {"+", p.D}}
	return all[:p.Steps]
}

// apply computes one step on the running value v.
func (s step) apply(v int) int {
	switch s.op {
	case "*":
		return v * s.operand
	case "%":
		return v % s.operand
	case "+":
		return v + s.operand
	}
	panic(fmt.Sprintf("arith: unknown step %q", s.op))
}

// Values returns the running value after each step: Values()[Steps-1] is
// the answer.
func (p Chain) Values() []int {
	v, out := p.A, make([]int, 0, p.Steps)
	for _, s := range p.steps() {
		v = s.apply(v)
		out = append(out, v)
	}
	return out
}

// Answer returns the exact integer result.
func (p Chain) Answer() int { return p.Values()[p.Steps-1] }

// Expression is the whole chain in Go, "482 * 37 % 64 + 25" (Go's
// precedence evaluates it left to right as the steps do): the plan a worked
// solution writes down, and what one composed program would print.
func (p Chain) Expression() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(p.A))
	for _, s := range p.steps() {
		fmt.Fprintf(&b, " %s %d", s.op, s.operand)
	}
	return b.String()
}

// StepCode returns the snippet of step i (0 first) that starts from the
// value v printed by the step before (A for the first step):
// fmt.Println(18334 % 64).
func (p Chain) StepCode(i, v int) string { return p.stepCode(goCode, i, v) }

// stepCode is StepCode written in l: print(18334 % 64) in Python.
func (p Chain) stepCode(l lang, i, v int) string {
	s := p.steps()[i]
	return l.print(l.binary(v, s.op, s.operand))
}

// ID returns the task ID, multistep-s<steps>-<A>-<B>-<C>-<D>-t<template>-n<noun>,
// for example multistep-s3-482-37-64-25-t0-n0.
func (p Chain) ID() string {
	return fmt.Sprintf("multistep-s%d-%d-%d-%d-%d-t%d-n%d", p.Steps, p.A, p.B, p.C, p.D, p.Template, p.Noun)
}

// Task returns the chain as a task with its decimal answer.
func (p Chain) Task() envs.Task { return task(p.ID(), p.Prompt(), p.Answer()) }

// Steps returns the step count of a chain's task, or ok false for any
// other task.
func Steps(t envs.Task) (n int, ok bool) {
	p, ok := parseChainID(t.ID)
	return p.Steps, ok
}

// parseChainID inverts Chain.ID, accepting only well-formed chains.
func parseChainID(id string) (Chain, bool) {
	f := strings.Split(id, "-")
	if len(f) != 8 || f[0] != "multistep" || !strings.HasPrefix(f[1], "s") ||
		!strings.HasPrefix(f[6], "t") || !strings.HasPrefix(f[7], "n") {
		return Chain{}, false
	}
	var n [7]int
	for i, s := range []string{f[1][1:], f[2], f[3], f[4], f[5], f[6][1:], f[7][1:]} {
		v, err := strconv.Atoi(s)
		if err != nil || strconv.Itoa(v) != s {
			return Chain{}, false
		}
		n[i] = v
	}
	p := Chain{Steps: n[0], A: n[1], B: n[2], C: n[3], D: n[4], Template: n[5], Noun: n[6]}
	if !p.wellFormed() {
		return Chain{}, false
	}
	return p, true
}

// wellFormed reports whether p has a step count, wording and noun in range,
// two-digit operands where its steps use them (C at least 11) and zeros
// where they do not, and a first factor of 1 to 9 digits.
func (p Chain) wellFormed() bool {
	if p.Steps < 1 || p.Steps > MaxSteps || p.Template < 0 || p.Template >= ChainTemplates ||
		p.Noun < 0 || p.Noun >= ChainNouns || !inDigits(p.A, 1, 9) {
		return false
	}
	ops := []int{p.B, p.C, p.D}
	for i, v := range ops {
		used := i < p.Steps
		if used != inDigits(v, 2, 2) || (!used && v != 0) {
			return false
		}
	}
	return p.Steps < 2 || p.C >= 11
}

// RandomChain draws a chain of n steps: the digits of A uniformly in d, then
// A uniformly among numbers of that many digits; B, D uniformly in
// [10, 99], C in [11, 99]; template and noun uniformly. It panics when n is
// not in [1, MaxSteps] or d is not 1 <= Min <= Max <= 9.
func RandomChain(rng *rand.Rand, n int, d Digits) Chain {
	if n < 1 || n > MaxSteps || d.Min < 1 || d.Max < d.Min || d.Max > 9 {
		panic(fmt.Sprintf("arith: RandomChain(%d steps, digits %+v)", n, d))
	}
	p := Chain{Steps: n, A: randDigits(rng, d.Min, d.Max), B: 10 + rng.Intn(90)}
	if n >= 2 {
		p.C = 11 + rng.Intn(89)
	}
	if n >= 3 {
		p.D = 10 + rng.Intn(90)
	}
	p.Template = rng.Intn(ChainTemplates)
	p.Noun = rng.Intn(ChainNouns)
	return p
}

// solution is the chain's worked solution in l: the whole chain as its
// plan (the same text in both languages), then one call a step, each
// snippet starting from the value the step before printed (the tool keeps
// no state between calls).
func (p Chain) solution(l lang) solution {
	want := p.Values()
	s := solution{plan: p.Expression()}
	v := p.A
	for i := range p.Steps {
		s.calls = append(s.calls, call{code: p.stepCode(l, i, v), want: want[i]})
		v = want[i]
	}
	return s
}
