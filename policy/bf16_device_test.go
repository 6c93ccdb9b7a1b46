//go:build unix

package policy

// A model frozen in bfloat16 on a device backend: on one that widens
// (backend.Widener, here the arena) the frozen weights enter the device
// once, as bfloat16, and are widened there for each product; on one that
// does not, they are widened on the host and uploaded for each product.

import (
	"fmt"
	"math/rand"
	"runtime/debug"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// uploads counts the values a backend takes from the host (Mirror,
// Upload, and MirrorBF16's bfloat16 values) and widens with the
// backend's own Widener.
type uploads struct {
	backend.Backend
	n int // float32 values, or bfloat16 values for MirrorBF16
}

func (u *uploads) Mirror(x []float32) (backend.Tensor, error) {
	u.n += len(x)
	return u.Backend.Mirror(x)
}

func (u *uploads) Upload(dst backend.Tensor, src []float32) error {
	u.n += len(src)
	return u.Backend.Upload(dst, src)
}

func (u *uploads) MirrorBF16(h []uint16) (backend.Tensor, error) {
	u.n += len(h)
	return u.Backend.(backend.Widener).MirrorBF16(h)
}

func (u *uploads) WidenBF16(dst, src backend.Tensor) error {
	return u.Backend.(backend.Widener).WidenBF16(dst, src)
}

// noWidener hides a backend's Widener, so the model widens on the host;
// it keeps the backend's per-row products (rowKernel), which decoding's
// numbers depend on.
type noWidener struct{ backend.Backend }

func (n noWidener) LinearRows(m, o, k int, a, w, y backend.Tensor) error {
	return n.Backend.(rowKernel).LinearRows(m, o, k, a, w, y)
}

// frozenLen is the number of weights m holds in bfloat16.
func frozenLen(m *Model) int {
	n := 0
	for _, p := range m.Params {
		if p.Frozen16() {
			n += p.Len()
		}
	}
	return n
}

// TestFreeze16DeviceIsBitIdentical runs a frozen model's LogProbs and a
// decoding session's Step logits on pure Go (host widening), on the arena
// (device widening) and on the arena with its Widener hidden (host
// widening, uploaded per product): the same bits everywhere.
func TestFreeze16DeviceIsBitIdentical(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for _, tied := range []bool{false, true} {
		t.Run(fmt.Sprintf("tied=%t", tied), func(t *testing.T) {
			m := testModel(t, tied, 71)
			m.Freeze16()
			seqs := randomSeqs(rand.New(rand.NewSource(72)), m.Config.VocabSize, 9, 1, 30, 17)
			run := func(be backend.Backend) [][]float32 {
				m.UseBackend(be)
				out := logProbs(t, m, seqs)
				s := m.NewSession(len(seqs), 64)
				defer s.Close()
				for step := range 4 {
					feed := make([][]int, len(seqs))
					for i, sq := range seqs {
						feed[i] = sq[min(step*3, len(sq)):min(step*3+3, len(sq))]
					}
					out = append(out, mustStep(t, s, feed)...)
				}
				return out
			}
			want := run(cpu.NewGo())
			a := newArena(t)
			if got := run(a); !bitsEqual(got, want) {
				t.Error("the arena, widening on its device, differs from pure Go")
			}
			if got := run(noWidener{a}); !bitsEqual(got, want) {
				t.Error("the arena without its Widener differs from pure Go")
			}
		})
	}
}

// TestFreeze16DeviceUploads counts the values LogProbs uploads on the
// arena: once the first call mirrored the weights, a call uploads its
// inputs only (each token's id, each scored token's id, the rotary
// tables of its session), far below the frozen weights, and leaves no
// tensor behind; with the Widener hidden every call uploads every frozen
// matrix again, widened on the host.
func TestFreeze16DeviceUploads(t *testing.T) {
	m, err := New(invarianceConfigs()["tiny"], rand.New(rand.NewSource(73)))
	if err != nil {
		t.Fatal(err)
	}
	m.Freeze16()
	frozen := frozenLen(m)
	seqs := randomSeqs(rand.New(rand.NewSource(74)), m.Config.VocabSize, 20, 31, 7)
	tokens, longest := 0, 0
	for _, sq := range seqs {
		tokens, longest = tokens+len(sq), max(longest, len(sq))
	}
	inputs := 2*tokens + longest*m.Config.HeadDim() // ids, targets, cos and sin [longest, D/2]
	a := newArena(t)
	count := func(be backend.Backend, u *uploads) (first, later int) {
		m.UseBackend(be)
		var live int
		for call := range 3 {
			u.n = 0
			logProbs(t, m, seqs)
			if call == 0 {
				first, live = u.n, a.Live()
			}
		}
		if a.Live() != live {
			t.Errorf("the arena holds %d bytes after 3 calls, %d after the first", a.Live(), live)
		}
		return first, u.n
	}
	u := &uploads{Backend: a}
	first, later := count(u, u)
	t.Logf("%d frozen weights, %d tokens: with Widener the first LogProbs uploads %d values, a later one %d (inputs ≤ %d)", frozen, tokens, first, later, inputs)
	if first < frozen {
		t.Errorf("first call uploaded %d values, fewer than the %d frozen weights it must mirror", first, frozen)
	}
	if later > inputs || later*20 > frozen {
		t.Errorf("a later call uploaded %d values, want its inputs only (≤ %d), far below the %d frozen weights", later, inputs, frozen)
	}
	v := &uploads{Backend: a}
	_, hidden := count(noWidener{v}, v)
	t.Logf("without Widener a later LogProbs uploads %d values", hidden)
	if hidden < frozen {
		t.Errorf("without Widener a call uploaded %d values, want every frozen weight (%d) widened on the host", hidden, frozen)
	}
}
