package policy

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

func TestRoundBF16(t *testing.T) {
	cases := []struct {
		name string
		in   uint32 // float32 bits
		want uint16 // bfloat16 bits
	}{
		{"one", 0x3f800000, 0x3f80},
		{"minus zero", 0x80000000, 0x8000},
		{"below half rounds down", 0x3f807fff, 0x3f80},
		{"above half rounds up", 0x3f808001, 0x3f81},
		{"tie to even, down", 0x3f808000, 0x3f80},
		{"tie to even, up", 0x3f818000, 0x3f82},
		{"negative tie to even", 0xbf818000, 0xbf82},
		{"carry into the exponent", 0x3fffffff, 0x4000},
		{"smallest subnormal to zero", 0x00000001, 0x0000},
		{"subnormal tie to even, down", 0x00008000, 0x0000},
		{"subnormal tie to even, up", 0x00018000, 0x0002},
		{"subnormal above half", 0x00008001, 0x0001},
		{"largest subnormal to smallest normal", 0x007fffff, 0x0080},
		{"largest bfloat16", 0x7f7f0000, 0x7f7f},
		{"below the largest's half ulp", 0x7f7f7fff, 0x7f7f},
		{"tie past the largest to infinity", 0x7f7f8000, 0x7f80},
		{"largest float32 to infinity", 0x7f7fffff, 0x7f80},
		{"infinity", 0x7f800000, 0x7f80},
		{"minus infinity", 0xff800000, 0xff80},
		{"quiet NaN", 0x7fc00000, 0x7fc0},
		{"NaN with low payload only", 0x7f800001, 0x7fc0},
		{"negative NaN, all bits", 0xffffffff, 0xffff},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := roundBF16(math.Float32frombits(c.in))
			if got != c.want {
				t.Errorf("case %d: roundBF16(%#08x) = %#04x, want %#04x", i, c.in, got, c.want)
			}
			if f := math.Float32frombits(c.in); f != f && fromBF16(got) == fromBF16(got) {
				t.Errorf("case %d: NaN %#08x rounded to a number %#04x", i, c.in, got)
			}
		})
	}
}

// TestBF16RoundTrip: every bfloat16 value widens exactly and rounds back
// to itself, and widenBF16 (split over the cores for large matrices)
// widens as fromBF16 does.
func TestBF16RoundTrip(t *testing.T) {
	all := make([]uint16, 1<<16)
	for h := range all {
		all[h] = uint16(h)
		f := fromBF16(uint16(h))
		if f != f {
			continue
		}
		if got := roundBF16(f); got != uint16(h) {
			t.Fatalf("roundBF16(fromBF16(%#04x)) = %#04x", h, got)
		}
	}
	for _, n := range []int{0, 7, 1 << 16, 5*widenChunk + 3} {
		src := make([]uint16, n)
		for i := range src {
			src[i] = all[(i*40503)%len(all)]
		}
		dst := make([]float32, n)
		widenBF16(dst, src)
		for i, h := range src {
			if math.Float32bits(dst[i]) != math.Float32bits(fromBF16(h)) {
				t.Fatalf("n=%d: widenBF16[%d] = %#08x, want %#08x", n, i, math.Float32bits(dst[i]), math.Float32bits(fromBF16(h)))
			}
		}
	}
}

// roundedCopy is a float32 copy of m whose frozen weights hold their
// bfloat16 values: what a Freeze16 model computes with.
func roundedCopy(m *Model) *Model {
	c := m.Clone()
	for _, p := range c.frozenParams() {
		for i, v := range p.Data {
			p.Data[i] = fromBF16(roundBF16(v))
		}
	}
	return c
}

// TestFreeze16Forward: a frozen model's log-probs, cached-decoding logits
// and mean hidden states are those of the float32 model with rounded
// weights bit for bit, and within a stated tolerance of the unrounded
// model's.
func TestFreeze16Forward(t *testing.T) {
	for _, tied := range []bool{false, true} {
		t.Run(fmt.Sprintf("tied=%t", tied), func(t *testing.T) {
			m := testModel(t, tied, 61)
			rounded := roundedCopy(m)
			frozen := m.Clone()
			frozen.Freeze16()
			seqs := randomSeqs(rand.New(rand.NewSource(62)), m.Config.VocabSize, 9, 1, 30, 17)

			logProbs := func(m *Model) [][]float32 {
				t.Helper()
				lp, err := m.LogProbs(seqs)
				if err != nil {
					t.Fatal(err)
				}
				return lp
			}
			want, got := logProbs(rounded), logProbs(frozen)
			for i, lp := range logProbs(m.Clone16()) {
				for j := range lp {
					if math.Float32bits(lp[j]) != math.Float32bits(got[i][j]) {
						t.Fatalf("Clone16's LogProbs[%d][%d] = %v, Freeze16's %v", i, j, lp[j], got[i][j])
					}
				}
			}
			worst := 0.0
			for i, lp := range logProbs(m) {
				for j := range lp {
					if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
						t.Fatalf("LogProbs[%d][%d] = %v, want the rounded model's %v", i, j, got[i][j], want[i][j])
					}
					worst = math.Max(worst, math.Abs(float64(got[i][j]-lp[j])))
				}
			}
			// Weights N(0, 0.3²) rounded to 8 significant bits move
			// these log-probs (about -4 nats) by up to 0.07 nats; at 0
			// the rounding did nothing.
			t.Logf("max |bf16 - f32| log-prob difference %.3g", worst)
			if worst == 0 || worst > 0.1 {
				t.Errorf("max |bf16 - f32| log-prob difference %.3g, want in (0, 0.1]", worst)
			}

			a, b := rounded.NewSession(len(seqs), 64), frozen.NewSession(len(seqs), 64)
			for step := 0; step < 3; step++ {
				feed := make([][]int, len(seqs))
				for i, s := range seqs {
					feed[i] = s[min(step*3, len(s)):min(step*3+3, len(s))]
				}
				la, err := a.Step(feed)
				if err != nil {
					t.Fatal(err)
				}
				lb, err := b.Step(feed)
				if err != nil {
					t.Fatal(err)
				}
				for i := range la {
					for j := range la[i] {
						if math.Float32bits(la[i][j]) != math.Float32bits(lb[i][j]) {
							t.Fatalf("step %d: Step logits [%d][%d] = %v, want %v", step, i, j, lb[i][j], la[i][j])
						}
					}
				}
			}
			ha, err := rounded.MeanHidden(seqs[2])
			if err != nil {
				t.Fatal(err)
			}
			hb, err := frozen.MeanHidden(seqs[2])
			if err != nil {
				t.Fatal(err)
			}
			for c := range ha {
				if math.Float32bits(ha[c]) != math.Float32bits(hb[c]) {
					t.Fatalf("MeanHidden[%d] = %v, want %v", c, hb[c], ha[c])
				}
			}
		})
	}
}

// TestFreeze16Memory: the frozen linear weights take 2 bytes each, the
// rest 4, the weight count is unchanged, and a clone stays frozen.
func TestFreeze16Memory(t *testing.T) {
	cases := []struct {
		name  string
		cfg   Config
		ratio [2]float64 // bounds of frozen / float32 weight bytes
	}{
		{"layers dominate", Config{VocabSize: 32, HiddenSize: 64, IntermediateSize: 256, NumHiddenLayers: 4,
			NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 16, RopeTheta: 10000, RMSNormEps: 1e-6, TieWordEmbeddings: true}, [2]float64{0.5, 0.52}},
		{"untied vocabulary dominates", Config{VocabSize: 4096, HiddenSize: 32, IntermediateSize: 64, NumHiddenLayers: 1,
			NumAttentionHeads: 2, NumKeyValueHeads: 1, MaxPositionEmbeddings: 16, RopeTheta: 10000, RMSNormEps: 1e-6}, [2]float64{0.97, 0.99}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := New(c.cfg, rand.New(rand.NewSource(1)))
			if err != nil {
				t.Fatal(err)
			}
			full, n := m.WeightBytes(), m.NumParams()
			if full != 4*int64(n) {
				t.Fatalf("case %d: float32 weights take %d bytes for %d weights", i, full, n)
			}
			var linear int64
			for _, p := range m.frozenParams() {
				linear += int64(len(p.Data))
			}
			c16 := m.Clone16()
			m.Freeze16()
			if got, want := m.WeightBytes(), full-2*linear; got != want || c16.WeightBytes() != want {
				t.Errorf("case %d: frozen weights take %d bytes (Clone16's %d), want %d", i, got, c16.WeightBytes(), want)
			}
			if r := float64(m.WeightBytes()) / float64(full); r < c.ratio[0] || r > c.ratio[1] {
				t.Errorf("case %d: frozen/float32 = %.3f, want in [%g, %g]", i, r, c.ratio[0], c.ratio[1])
			}
			if m.NumParams() != n || !m.Frozen16() {
				t.Errorf("case %d: %d weights after freezing, want %d; Frozen16 %t", i, m.NumParams(), n, m.Frozen16())
			}
			for _, p := range m.frozenParams() {
				if p.Data != nil || !p.Frozen16() {
					t.Fatalf("case %d: %s keeps its float32 weights", i, p.Name)
				}
			}
			for _, c := range []*Model{m.Clone(), m.Clone16()} {
				if c.WeightBytes() != m.WeightBytes() || !c.Frozen16() {
					t.Errorf("case %d: a clone of a frozen model takes %d bytes, frozen %t", i, c.WeightBytes(), c.Frozen16())
				}
			}
		})
	}
}

// TestFreeze16RefusesWrites: everything that would write the frozen
// weights refuses a frozen model with ErrFrozen16 (SaveModel writes them
// as BF16: TestLoRABase16Writes).
func TestFreeze16RefusesWrites(t *testing.T) {
	frozen := func(t *testing.T) *Model {
		m := testModel(t, true, 71)
		m.Freeze16()
		return m
	}
	seqs := [][]int{{1, 2, 3, 4}}
	cases := []struct {
		name string
		try  func(m *Model) error
	}{
		{"Backward", func(m *Model) error {
			_, err := m.Backward(seqs, [][]float32{{0, -1, -1, -1}})
			return err
		}},
		{"EnableGrads", func(m *Model) error { return recovered(func() { m.EnableGrads() }) }},
		{"MergeAdapters", func(m *Model) error {
			if err := m.AttachLoRA(LoRAConfig{Rank: 2, Alpha: 4, Targets: []string{"q"}}, rand.New(rand.NewSource(1))); err != nil {
				return err
			}
			return m.MergeAdapters()
		}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.try(frozen(t))
			if err == nil || !strings.Contains(err.Error(), ErrFrozen16.Error()) {
				t.Errorf("case %d: %s on a frozen model: %v, want %v", i, c.name, err, ErrFrozen16)
			}
		})
	}
	if _, err := frozen(t).Backward(seqs, [][]float32{{0, -1, -1, -1}}); !errors.Is(err, ErrFrozen16) {
		t.Errorf("Backward's error %v is not ErrFrozen16", err)
	}
}

// recovered runs f and returns what it panicked with as an error.
func recovered(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	f()
	return nil
}

// BenchmarkWidenBF16 widens the largest matrix of a Qwen2.5-0.5B layer
// (gate/up, 4864 x 896).
func BenchmarkWidenBF16(b *testing.B) {
	src := make([]uint16, 4864*896)
	for i := range src {
		src[i] = uint16(i * 40503)
	}
	dst := make([]float32, len(src))
	b.SetBytes(int64(len(src)) * 2)
	for b.Loop() {
		widenBF16(dst, src)
	}
	b.ReportMetric(float64(len(src))*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gvalues/s")
}

// TestLoadModel16: loading frozen gives what loading then Freeze16 gives,
// stored alike.
func TestLoadModel16(t *testing.T) {
	for _, tied := range []bool{false, true} {
		t.Run(fmt.Sprintf("tied=%t", tied), func(t *testing.T) {
			dir := t.TempDir()
			if err := SaveModel(dir, testModel(t, tied, 81)); err != nil {
				t.Fatal(err)
			}
			want, err := LoadModel(dir)
			if err != nil {
				t.Fatal(err)
			}
			want.Freeze16()
			got, err := LoadModel16(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got.WeightBytes() != want.WeightBytes() || got.NumParams() != want.NumParams() {
				t.Fatalf("LoadModel16 holds %d bytes for %d weights, want %d for %d", got.WeightBytes(), got.NumParams(), want.WeightBytes(), want.NumParams())
			}
			for i, p := range got.Params {
				w := want.Params[i]
				if fmt.Sprint(p.half) != fmt.Sprint(w.half) || fmt.Sprint(p.Data) != fmt.Sprint(w.Data) {
					t.Fatalf("%s differs from LoadModel then Freeze16", p.Name)
				}
			}
		})
	}
	if _, err := LoadModel16(t.TempDir()); err == nil {
		t.Error("LoadModel16 of an empty folder: no error")
	}
}
