package reward

import (
	"strings"
	"unicode"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/reward/mathgrade"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// Func scores one trajectory of a task. applies is false when the component
// has nothing to judge (for example, a task without a gold answer); such a
// score is neither added nor logged. t must be non-nil.
type Func func(t *rollout.Trajectory, task envs.Task) (score float64, applies bool)

// Paper's reward values (ARTIST, math).
const (
	answerScore   = 2.0   // correct final answer
	relaxedPerTag = 0.125 // each of the four tag pairs present
	strictScore   = 0.5   // whole response in the strict structure
)

// Answer scores 2 when the answer extracted from t.Response (see
// mathgrade.Extract) equals task.Answer (see mathgrade.Equal), else 0. It
// does not apply to a task whose gold answer is blank.
func Answer(f format.Format) Func {
	return func(t *rollout.Trajectory, task envs.Task) (float64, bool) {
		if strings.TrimSpace(task.Answer) == "" {
			return 0, false
		}
		if Correct(t, task, f) {
			return answerScore, true
		}
		return 0, true
	}
}

// Correct reports whether the answer extracted from t.Response equals the
// gold task.Answer. It is the accuracy (pass@1) criterion.
func Correct(t *rollout.Trajectory, task envs.Task, f format.Format) bool {
	pred, ok := mathgrade.Extract(t.Response, f)
	return ok && mathgrade.Equal(pred, task.Answer)
}

// FormatRelaxed scores 0.125 for each of the think, code, output and answer
// tag pairs present in t.Response, where present means an opening tag
// followed, anywhere later, by its closing tag; at most 0.5. It always
// applies.
//
// In the art style of f the four parts are the kinds of format.Piece:
// 0.125 for each of a reasoning line, a call line ended by its newline, a
// result line ("#n: …") and an answer line present in t.Response.
func FormatRelaxed(f format.Format) Func {
	if f.ART() {
		return artRelaxed(f)
	}
	names := [...]string{f.Think, f.Code, f.Output, f.Answer}
	return func(t *rollout.Trajectory, _ envs.Task) (float64, bool) {
		score := 0.0
		for _, n := range names {
			if format.HasPair(t.Response, n) {
				score += relaxedPerTag
			}
		}
		return score, true
	}
}

// FormatStrict scores 0.5 when t.Response is, apart from whitespace between
// and around blocks, a sequence of blocks in the regular language
//
//	T (C O T?)+ A
//
// where T, C, O and A are think, code, output and answer blocks, else 0. So
// the response starts with a think block, makes one or more tool calls each
// followed by its output, may think again after any output, and ends with
// exactly one answer block. A block is an opening tag, then text, then the
// first following closing tag of the same name. The text of a think, code or
// answer block must hold no tag of the format (no nesting, no stray closing
// tags); the text of an output block is the tool's and is not inspected. Any
// other text outside blocks scores 0. It always applies.
//
// In the art style of f the blocks are the pieces of format.Format.Pieces
// (T reasoning lines, C a call line, O its result lines, A the answer
// line) and the response must be in the same language T (C O T?)+ A; in
// addition the k-th result must be numbered #k (the engine numbers them
// so: a result line the policy wrote itself breaks the order) and the
// answer must not be empty. Blank lines may stand anywhere.
func FormatStrict(f format.Format) Func {
	if f.ART() {
		return artStrict(f)
	}
	return func(t *rollout.Trajectory, _ envs.Task) (float64, bool) {
		seq, ok := scanBlocks(t.Response, f)
		if ok && strictOrder(seq) {
			return strictScore, true
		}
		return 0, true
	}
}

// block is the kind of one tagged block.
type block int

const (
	think block = iota
	code
	output
	answer
)

// scanBlocks splits s into blocks separated by whitespace; ok is false when
// s holds anything else.
func scanBlocks(s string, f format.Format) (seq []block, ok bool) {
	names := [...]string{think: f.Think, code: f.Code, output: f.Output, answer: f.Answer}
	for {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			return seq, true
		}
		k, found := openingAt(s, names[:])
		if !found {
			return nil, false
		}
		rest, ok := format.CloseBlock(s[len(format.Open(names[k])):], names[:], int(k), int(output))
		if !ok {
			return nil, false
		}
		s = rest
		seq = append(seq, k)
	}
}

func openingAt(s string, names []string) (block, bool) {
	for k, n := range names {
		if strings.HasPrefix(s, format.Open(n)) {
			return block(k), true
		}
	}
	return 0, false
}

// States of the automaton for T (C O T?)+ A.
const (
	sStart     = iota
	sThink     // T
	sCode      // … C
	sOutput    // … C O
	sLateThink // … C O T
	sAnswer    // … A (accepting)
	sReject    // no way back
)

// strictNext[state][block] is the next state.
var strictNext = [sReject][4]int{
	sStart:     {think: sThink, code: sReject, output: sReject, answer: sReject},
	sThink:     {think: sReject, code: sCode, output: sReject, answer: sReject},
	sCode:      {think: sReject, code: sReject, output: sOutput, answer: sReject},
	sOutput:    {think: sLateThink, code: sCode, output: sReject, answer: sAnswer},
	sLateThink: {think: sReject, code: sCode, output: sReject, answer: sAnswer},
	sAnswer:    {think: sReject, code: sReject, output: sReject, answer: sReject},
}

// strictOrder reports whether seq is in T (C O T?)+ A.
func strictOrder(seq []block) bool {
	state := sStart
	for _, k := range seq {
		if state = strictNext[state][k]; state == sReject {
			return false
		}
	}
	return state == sAnswer
}

// pieceBlock maps the kinds of art-style pieces onto the blocks of the
// tags style.
var pieceBlock = [...]block{format.PieceText: think, format.PieceCall: code, format.PieceResult: output, format.PieceAnswer: answer}

func artRelaxed(f format.Format) Func {
	return func(t *rollout.Trajectory, _ envs.Task) (float64, bool) {
		var seen [4]bool
		for _, p := range f.Pieces(t.Response) {
			seen[pieceBlock[p.Kind]] = true
		}
		score := 0.0
		for _, s := range seen {
			if s {
				score += relaxedPerTag
			}
		}
		return score, true
	}
}

func artStrict(f format.Format) Func {
	return func(t *rollout.Trajectory, _ envs.Task) (float64, bool) {
		pieces := f.Pieces(t.Response)
		seq := make([]block, len(pieces))
		results := 0
		for i, p := range pieces {
			seq[i] = pieceBlock[p.Kind]
			switch p.Kind {
			case format.PieceResult:
				if results++; p.N != results {
					return 0, true
				}
			case format.PieceAnswer:
				if p.Text == "" {
					return 0, true
				}
			}
		}
		if strictOrder(seq) {
			return strictScore, true
		}
		return 0, true
	}
}

// ToolSuccess scores the fraction of t.Calls whose status counts as a
// success (envs.Status.Success), in [0, 1]; 0 when there is no call. It
// always applies.
func ToolSuccess() Func {
	return func(t *rollout.Trajectory, _ envs.Task) (float64, bool) {
		if len(t.Calls) == 0 {
			return 0, true
		}
		ok := 0
		for _, c := range t.Calls {
			if c.Result.Status.Success() {
				ok++
			}
		}
		return float64(ok) / float64(len(t.Calls)), true
	}
}
