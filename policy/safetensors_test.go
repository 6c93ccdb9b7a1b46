package policy

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func stTestModel(t testing.TB, tied bool) *Model {
	t.Helper()
	m, err := New(Config{VocabSize: 40, HiddenSize: 16, IntermediateSize: 24, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 128, RopeTheta: 10000,
		RMSNormEps: 1e-6, TieWordEmbeddings: tied}, rand.New(rand.NewSource(1)))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range m.Params { // non-trivial biases and norms too
		for j := range p.Data {
			p.Data[j] += float32(i+1) * 1e-3 * float32(j%7)
		}
	}
	return m
}

// stSameWeights fails unless a and b have the same config and bit-identical
// parameters.
func stSameWeights(t *testing.T, a, b *Model) {
	t.Helper()
	if a.Config != b.Config {
		t.Fatalf("config %+v, want %+v", b.Config, a.Config)
	}
	if len(a.Params) != len(b.Params) {
		t.Fatalf("%d params, want %d", len(b.Params), len(a.Params))
	}
	for i, p := range a.Params {
		q := b.Params[i]
		if p.Name != q.Name || !reflect.DeepEqual(p.Shape, q.Shape) {
			t.Fatalf("param %d is %s %v, want %s %v", i, q.Name, q.Shape, p.Name, p.Shape)
		}
		for j := range p.Data {
			if math.Float32bits(p.Data[j]) != math.Float32bits(q.Data[j]) {
				t.Fatalf("%s[%d] = %v, want %v", p.Name, j, q.Data[j], p.Data[j])
			}
		}
	}
}

func TestSaveLoadModel(t *testing.T) {
	for _, tied := range []bool{false, true} {
		t.Run(fmt.Sprintf("tied=%v", tied), func(t *testing.T) {
			m := stTestModel(t, tied)
			dir := filepath.Join(t.TempDir(), "ckpt")
			if err := SaveModel(dir, m); err != nil {
				t.Fatal(err)
			}
			got, err := LoadModel(dir)
			if err != nil {
				t.Fatal(err)
			}
			stSameWeights(t, m, got)
			if (got.Head == got.Embed) != tied {
				t.Errorf("head shares the embedding: %v, want %v", got.Head == got.Embed, tied)
			}
			stored, err := ReadSafetensors(filepath.Join(dir, "model.safetensors"))
			if err != nil {
				t.Fatal(err)
			}
			_, hasHead := stored["lm_head.weight"]
			if len(stored) != len(m.Params) || hasHead == tied {
				t.Errorf("file holds %d tensors (lm_head: %v), want %d (lm_head: %v)", len(stored), hasHead, len(m.Params), !tied)
			}
			var cfg map[string]any
			data, _ := os.ReadFile(filepath.Join(dir, "config.json"))
			if err := json.Unmarshal(data, &cfg); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"model_type": "qwen2", "torch_dtype": "float32", "hidden_act": "silu",
				"architectures": []any{"Qwen2ForCausalLM"}, "num_key_value_heads": 2.0, "tie_word_embeddings": tied}
			for k, v := range want {
				if !reflect.DeepEqual(cfg[k], v) {
					t.Errorf("config.json %s = %v, want %v", k, cfg[k], v)
				}
			}
		})
	}
}

// stRawTensor is a tensor written byte for byte by stWriteRaw.
type stRawTensor struct {
	name, dtype string
	shape       []int
	data        []byte
}

// stWriteRaw writes a safetensors file by hand; edit may change the header.
func stWriteRaw(t testing.TB, path string, ts []stRawTensor, edit func(map[string]any)) []byte {
	t.Helper()
	head := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	var data []byte
	for _, r := range ts {
		head[r.name] = map[string]any{"dtype": r.dtype, "shape": r.shape, "data_offsets": []int{len(data), len(data) + len(r.data)}}
		data = append(data, r.data...)
	}
	if edit != nil {
		edit(head)
	}
	h, err := json.Marshal(head)
	if err != nil {
		t.Fatal(err)
	}
	file := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	file = append(append(file, h...), data...)
	if path != "" {
		if err := os.WriteFile(path, file, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return file
}

func stU16s(v ...uint16) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint16(b, x)
	}
	return b
}

func TestReadHalfPrecision(t *testing.T) {
	path := filepath.Join(t.TempDir(), "half.safetensors")
	stWriteRaw(t, path, []stRawTensor{
		{"f16", "F16", []int{2, 4}, stU16s(0x3c00, 0xc000, 0x7bff, 0x0001, 0x8000, 0x7c00, 0x3555, 0x0400)},
		{"bf16", "BF16", []int{4}, stU16s(0x3f80, 0xc040, 0x4049, 0xff80)},
	}, nil)
	got, err := ReadSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	inf := float32(math.Inf(1))
	want := map[string]Tensor{
		"f16":  {Shape: []int{2, 4}, Data: []float32{1, -2, 65504, 1.0 / (1 << 24), float32(math.Copysign(0, -1)), inf, 0.333251953125, 1.0 / (1 << 14)}},
		"bf16": {Shape: []int{4}, Data: []float32{1, -3, 3.140625, -inf}},
	}
	for name, w := range want {
		g := got[name]
		if !reflect.DeepEqual(g.Shape, w.Shape) || len(g.Data) != len(w.Data) {
			t.Fatalf("%s: got %v, want %v", name, g, w)
		}
		for i := range w.Data {
			if math.Float32bits(g.Data[i]) != math.Float32bits(w.Data[i]) {
				t.Errorf("%s[%d] = %v, want %v", name, i, g.Data[i], w.Data[i])
			}
		}
	}
}

func TestHalfToFloat32Exhaustive(t *testing.T) {
	for h := range 1 << 16 {
		sign, exp, mant := h>>15, (h>>10)&0x1f, h&0x3ff
		var want float64
		switch {
		case exp == 0x1f && mant == 0:
			want = math.Inf(1)
		case exp == 0x1f:
			want = math.NaN()
		case exp == 0:
			want = math.Ldexp(float64(mant), -24)
		default:
			want = math.Ldexp(1+float64(mant)/1024, exp-15)
		}
		if sign == 1 {
			want = -want
		}
		got := halfToFloat32(uint16(h))
		if math.IsNaN(want) != math.IsNaN(float64(got)) || !math.IsNaN(want) && float64(got) != want ||
			math.Signbit(float64(got)) != (sign == 1) {
			t.Fatalf("halfToFloat32(%#04x) = %v, want %v", h, got, want)
		}
	}
}

// stWriteModelAs stores m's tensors in dir with the given dtype (F32 values
// truncated to BF16 when asked), skipping or reshaping as told.
func stWriteModelAs(t *testing.T, dir string, m *Model, dtype string, skip string, reshape map[string][]int) {
	t.Helper()
	var ts []stRawTensor
	for _, p := range m.Params {
		if p.Name == skip {
			continue
		}
		var data []byte
		for _, v := range p.Data {
			if dtype == "BF16" {
				data = binary.LittleEndian.AppendUint16(data, uint16(math.Float32bits(v)>>16))
			} else {
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
			}
		}
		shape := p.Shape
		if s, ok := reshape[p.Name]; ok {
			shape = s
		}
		ts = append(ts, stRawTensor{p.Name, dtype, shape, data})
	}
	stWriteRaw(t, filepath.Join(dir, "model.safetensors"), ts, nil)
	cfg, _ := json.Marshal(m.Config)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadModelBF16(t *testing.T) {
	m := stTestModel(t, false)
	dir := t.TempDir()
	stWriteModelAs(t, dir, m, "BF16", "", nil)
	got, err := LoadModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params { // the expected weights are the truncated ones
		for j, v := range p.Data {
			p.Data[j] = math.Float32frombits(math.Float32bits(v) &^ 0xffff)
		}
	}
	stSameWeights(t, m, got)
}

func TestLoadModelHFConfig(t *testing.T) {
	m := stTestModel(t, true)
	dir := t.TempDir()
	stWriteModelAs(t, dir, m, "F32", "", nil)
	// A Qwen2.5 style config: extra keys, no rope_theta or rms_norm_eps
	// (HuggingFace defaults apply).
	cfg := `{"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1,
		"eos_token_id": 2, "hidden_act": "silu", "hidden_size": 16, "initializer_range": 0.02,
		"intermediate_size": 24, "max_position_embeddings": 128, "max_window_layers": 2,
		"model_type": "qwen2", "num_attention_heads": 4, "num_hidden_layers": 2,
		"num_key_value_heads": 2, "rope_scaling": null, "sliding_window": 128,
		"tie_word_embeddings": true, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
		"use_cache": true, "use_sliding_window": false, "vocab_size": 40}`
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	stSameWeights(t, m, got)
	if got.Head != got.Embed {
		t.Error("tied head is not the embedding")
	}
}

func TestLoadModelSharded(t *testing.T) {
	m := stTestModel(t, false)
	dir := t.TempDir()
	weightMap := map[string]string{}
	var shards [2][]NamedTensor
	for i, p := range m.Params {
		k := i % 2
		shards[k] = append(shards[k], NamedTensor{Name: p.Name, Shape: p.Shape, Data: p.Data})
		weightMap[p.Name] = fmt.Sprintf("model-%05d-of-00002.safetensors", k+1)
	}
	for k, ts := range shards {
		if err := WriteSafetensors(filepath.Join(dir, fmt.Sprintf("model-%05d-of-00002.safetensors", k+1)), ts); err != nil {
			t.Fatal(err)
		}
	}
	index, _ := json.Marshal(map[string]any{"metadata": map[string]any{"total_size": 1}, "weight_map": weightMap})
	os.WriteFile(filepath.Join(dir, "model.safetensors.index.json"), index, 0o644)
	cfg, _ := json.Marshal(m.Config)
	os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644)
	got, err := LoadModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	stSameWeights(t, m, got)
}

func TestLoadModelErrors(t *testing.T) {
	const up = "model.layers.1.mlp.up_proj.weight"
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string, m *Model)
		want  []string // substrings of the error
	}{
		{"missing tensor", func(t *testing.T, dir string, m *Model) {
			stWriteModelAs(t, dir, m, "F32", up, nil)
		}, []string{up, "missing", "model.safetensors"}},
		{"missing head", func(t *testing.T, dir string, m *Model) {
			stWriteModelAs(t, dir, m, "F32", "lm_head.weight", nil)
		}, []string{"lm_head.weight", "missing"}},
		{"misshapen tensor", func(t *testing.T, dir string, m *Model) {
			stWriteModelAs(t, dir, m, "F32", "", map[string][]int{up: {16, 24}})
		}, []string{up, "[16 24]", "[24 16]"}},
		{"integer tensor", func(t *testing.T, dir string, m *Model) {
			stWriteModelAs(t, dir, m, "F32", "", nil)
			path := filepath.Join(dir, "model.safetensors")
			f, _ := os.ReadFile(path)
			os.WriteFile(path, bytes.Replace(f, []byte(`{"data_offsets":[0,2560],"dtype":"F32"`), []byte(`{"data_offsets":[0,2560],"dtype":"I32"`), 1), 0o644)
		}, []string{"dtype I32", "model.embed_tokens.weight"}},
		{"no weights", func(t *testing.T, dir string, m *Model) {
			cfg, _ := json.Marshal(m.Config)
			os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644)
		}, []string{"model.safetensors"}},
		{"no config", func(t *testing.T, dir string, m *Model) {
			stWriteModelAs(t, dir, m, "F32", "", nil)
			os.Remove(filepath.Join(dir, "config.json"))
		}, []string{"config.json"}},
		{"gelu", func(t *testing.T, dir string, m *Model) {
			stWriteModelAs(t, dir, m, "F32", "", nil)
			os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"hidden_act": "gelu", "vocab_size": 40}`), 0o644)
		}, []string{"hidden_act", "config.json"}},
		{"invalid config", func(t *testing.T, dir string, m *Model) {
			stWriteModelAs(t, dir, m, "F32", "", nil)
			os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"vocab_size": 40}`), 0o644)
		}, []string{"hidden_size", "config.json"}},
		{"truncated weights", func(t *testing.T, dir string, m *Model) {
			stWriteModelAs(t, dir, m, "F32", "", nil)
			path := filepath.Join(dir, "model.safetensors")
			f, _ := os.ReadFile(path)
			os.WriteFile(path, f[:len(f)-10], 0o644)
		}, []string{"model.safetensors", "data_offsets"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir, stTestModel(t, false))
			_, err := LoadModel(dir)
			if err == nil {
				t.Fatal("LoadModel succeeded")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "policy: load model: ") {
				t.Errorf("err = %q, want the policy prefix", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("err = %q, want it to mention %q", msg, w)
				}
			}
		})
	}
}

func TestWriteReadSafetensors(t *testing.T) {
	tensors := []NamedTensor{
		{Name: "step", Shape: []int{}, Data: []float32{42}},
		{Name: "m/embed", Shape: []int{3, 2}, Data: []float32{1, -2, 3.5, float32(math.Inf(-1)), 1e-30, 0}},
		{Name: "empty", Shape: []int{0, 3}, Data: []float32{}},
		{Name: "odd", Shape: []int{3}, Data: []float32{7, 8, 9}},
	}
	path := filepath.Join(t.TempDir(), "optim.safetensors")
	if err := WriteSafetensors(path, tensors); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	n := binary.LittleEndian.Uint64(raw)
	if (8+n)%8 != 0 || raw[8] != '{' || !bytes.Contains(raw[8:8+n], []byte(`"__metadata__":{"format":"pt"}`)) {
		t.Errorf("header %q is not aligned or lacks format metadata", raw[8:8+n])
	}
	if got, want := uint64(len(raw))-8-n, uint64(4*(1+6+0+3)); got != want {
		t.Errorf("data section is %d bytes, want %d", got, want)
	}
	got, err := ReadSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(tensors) {
		t.Fatalf("read %d tensors, want %d", len(got), len(tensors))
	}
	for _, w := range tensors {
		g := got[w.Name]
		if !reflect.DeepEqual(g.Shape, w.Shape) || !reflect.DeepEqual(g.Data, w.Data) {
			t.Errorf("%s = %v %v, want %v %v", w.Name, g.Shape, g.Data, w.Shape, w.Data)
		}
	}
}

func TestWriteSafetensorsErrors(t *testing.T) {
	tests := []struct {
		name    string
		tensors []NamedTensor
	}{
		{"duplicate", []NamedTensor{{Name: "a", Shape: []int{1}, Data: []float32{1}}, {Name: "a", Shape: []int{1}, Data: []float32{2}}}},
		{"short data", []NamedTensor{{Name: "a", Shape: []int{2, 2}, Data: []float32{1, 2, 3}}}},
		{"negative dim", []NamedTensor{{Name: "a", Shape: []int{-1, -1}, Data: []float32{1}}}},
		{"reserved name", []NamedTensor{{Name: "__metadata__", Shape: []int{1}, Data: []float32{1}}}},
		{"empty name", []NamedTensor{{Shape: []int{1}, Data: []float32{1}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "x.safetensors")
			if err := WriteSafetensors(path, tc.tensors); err == nil || !strings.HasPrefix(err.Error(), "policy: ") {
				t.Errorf("err = %v, want a policy error", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("a failed write left %d files", len(entries))
			}
		})
	}
}

// stValidFile is a small well-formed safetensors file.
func stValidFile(t testing.TB) []byte {
	return stWriteRaw(t, "", []stRawTensor{
		{"a", "F32", []int{2}, binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, math.Float32bits(1)), math.Float32bits(2))},
		{"b", "BF16", []int{1, 1}, stU16s(0x3f80)},
	}, nil)
}

func TestCorruptSafetensors(t *testing.T) {
	valid := stValidFile(t)
	edited := func(edit func(map[string]any)) []byte {
		return stWriteRaw(t, "", []stRawTensor{{"a", "F32", []int{2}, make([]byte, 8)}}, edit)
	}
	entry := func(dtype string, shape []int, begin, end int) func(map[string]any) {
		return func(h map[string]any) {
			h["a"] = map[string]any{"dtype": dtype, "shape": shape, "data_offsets": []int{begin, end}}
		}
	}
	tests := []struct {
		name string
		file []byte
	}{
		{"empty", nil},
		{"short length", valid[:5]},
		{"truncated header", valid[:20]},
		{"truncated data", valid[:len(valid)-1]},
		{"huge header length", append(binary.LittleEndian.AppendUint64(nil, 1<<62), valid[8:]...)},
		{"header not json", append(binary.LittleEndian.AppendUint64(nil, 4), []byte("nope")...)},
		{"header not object", append(binary.LittleEndian.AppendUint64(nil, 2), []byte("[]")...)},
		{"entry not object", edited(func(h map[string]any) { h["a"] = 3 })},
		{"offsets past end", edited(entry("F32", []int{4}, 0, 16))},
		{"offsets reversed", edited(entry("F32", []int{0}, 8, 0))},
		{"negative offset", edited(entry("F32", []int{2}, -8, 0))},
		{"negative dim", edited(entry("F32", []int{-2, -1}, 0, 8))},
		{"size mismatch", edited(entry("F32", []int{3}, 0, 8))},
		{"overflowing shape", edited(entry("F32", []int{1 << 40, 1 << 40, 1 << 40}, 0, 8))},
		{"unknown dtype", edited(entry("F12", []int{2}, 0, 8))},
		{"integer dtype", edited(entry("I64", []int{1}, 0, 8))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.safetensors")
			if err := os.WriteFile(path, tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadSafetensors(path)
			if err == nil {
				t.Fatal("ReadSafetensors succeeded")
			}
			if !strings.HasPrefix(err.Error(), "policy: read safetensors: ") || !strings.Contains(err.Error(), path) {
				t.Errorf("err = %q, want a policy error naming the file", err)
			}
		})
	}
}

func FuzzSafetensorsHeader(f *testing.F) {
	valid := stValidFile(f)
	f.Add(valid)
	f.Add(valid[:len(valid)-3])
	f.Add(append(binary.LittleEndian.AppendUint64(nil, 2), []byte("{}")...))
	f.Add(stWriteRaw(f, "", []stRawTensor{{"x", "F16", []int{}, stU16s(0x7e00)}}, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		base, entries, err := parseSafetensors(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		st := &stFile{path: "fuzz", r: bytes.NewReader(data), base: base, entries: entries}
		got, err := st.readAll()
		if err != nil {
			return
		}
		for name, ts := range got {
			n := 1
			for _, d := range ts.Shape {
				n *= d
			}
			if n != len(ts.Data) {
				t.Fatalf("tensor %q: shape %v but %d values", name, ts.Shape, len(ts.Data))
			}
		}
	})
}

func ExampleSaveModel() {
	m, err := New(Config{VocabSize: 40, HiddenSize: 16, IntermediateSize: 24, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 128, RopeTheta: 10000,
		RMSNormEps: 1e-6, TieWordEmbeddings: true}, rand.New(rand.NewSource(1)))
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "ckpt")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := SaveModel(dir, m); err != nil {
		panic(err)
	}
	loaded, err := LoadModel(dir)
	if err != nil {
		panic(err)
	}
	fmt.Println(loaded.NumParams(), loaded.Head == loaded.Embed, reflect.DeepEqual(loaded.Embed.Data, m.Embed.Data))
	// Output: 4624 true true
}
