package policy

import (
	"math"
	"math/rand"
	"reflect"
	"testing"
)

// TestMeanHiddenIsPreLogits checks MeanHidden against the sampling path:
// the head is linear without bias, so Head·MeanHidden(ids) is the mean of
// the next-token logits after each prefix of ids.
func TestMeanHiddenIsPreLogits(t *testing.T) {
	cases := []struct {
		name string
		tied bool
		n    int
	}{
		{"one token", false, 1},
		{"several tokens", false, 9},
		{"tied head", true, 17},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := testModel(t, c.tied, int64(70+ci))
			ids := randomSeqs(rand.New(rand.NewSource(int64(80+ci))), m.Config.VocabSize, c.n)[0]
			h := meanHidden(t, m, ids)
			if len(h) != m.Config.HiddenSize {
				t.Fatalf("%d values, want hidden_size %d", len(h), m.Config.HiddenSize)
			}
			V, C := m.Config.VocabSize, m.Config.HiddenSize
			want := make([]float64, V)
			s := m.NewSession(1, len(ids))
			for _, tok := range ids {
				for v, l := range mustStep(t, s, [][]int{{tok}})[0] {
					want[v] += float64(l) / float64(len(ids))
				}
			}
			for v := range V {
				got := 0.0
				for j := range C {
					got += float64(m.Head.Data[v*C+j]) * float64(h[j])
				}
				if math.Abs(got-want[v]) > 1e-4*(1+math.Abs(want[v])) {
					t.Fatalf("logit %d: Head·MeanHidden %v, mean of the logits %v", v, got, want[v])
				}
			}
		})
	}
}

func TestMeanHiddenDeterministic(t *testing.T) {
	m := testModel(t, false, 91)
	ids := []int{3, 1, 4, 1, 5, 9, 2, 6}
	a, b := meanHidden(t, m, ids), meanHidden(t, m, append([]int(nil), ids...))
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two calls differ:\n%v\n%v", a, b)
	}
	if c := meanHidden(t, m, ids[:4]); reflect.DeepEqual(a, c) {
		t.Errorf("a prefix gives the same vector as the whole")
	}
	for i, v := range meanHidden(t, m, nil) {
		if v != 0 {
			t.Fatalf("empty ids: value %d is %v, want 0", i, v)
		}
	}
}
