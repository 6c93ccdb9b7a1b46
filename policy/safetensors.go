package policy

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/artist-rl/artist/internal/atomicfile"
	"github.com/artist-rl/artist/policy/backend"
)

// Safetensors layout: an 8-byte little-endian header length N, N bytes of
// JSON {name: {"dtype", "shape", "data_offsets": [begin, end]}, ...,
// "__metadata__": {string: string}}, then the raw little-endian data, with
// offsets counted from the end of the header.

// Tensor is a float32 array in row-major order with its shape.
type Tensor struct {
	Shape []int
	Data  []float32
}

// NamedTensor is a tensor with the name it has in a safetensors file.
// WriteSafetensors writes Data as F32, or, when BF16 is set (Data nil),
// those bfloat16 bits as BF16.
type NamedTensor struct {
	Name  string
	Shape []int
	Data  []float32
	BF16  []uint16
}

// values is the number of values t holds, in whichever type.
func (t NamedTensor) values() int { return len(t.Data) + len(t.BF16) }

const (
	stMaxHeader = 100 << 20 // the limit of the reference implementation
	stChunk     = 1 << 20   // bytes converted at a time
)

// stEntry is one tensor of a safetensors header.
type stEntry struct {
	DType   string   `json:"dtype"`
	Shape   []int    `json:"shape"`
	Offsets [2]int64 `json:"data_offsets"`
}

// stDTypeSize gives the element size of every dtype the format defines.
var stDTypeSize = map[string]int64{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1,
	"I16": 2, "U16": 2, "F16": 2, "BF16": 2,
	"I32": 4, "U32": 4, "F32": 4, "I64": 8, "U64": 8, "F64": 8,
}

// stFile is an open safetensors file with its parsed header.
type stFile struct {
	path    string
	r       io.ReaderAt
	base    int64 // where the data section starts
	entries map[string]stEntry
	buf     []byte // the chunk the reads go through (chunk), reused: one reader at a time
}

// parseSafetensors reads and checks the header of a file of the given size:
// every tensor has a known dtype, non-negative dims, and offsets inside the
// data section that match its element count.
func parseSafetensors(r io.ReaderAt, size int64) (base int64, entries map[string]stEntry, err error) {
	var lenBuf [8]byte
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return 0, nil, fmt.Errorf("read header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > stMaxHeader || int64(n) > size-8 {
		return 0, nil, fmt.Errorf("header length %d does not fit a %d-byte file", n, size)
	}
	head := make([]byte, n)
	if _, err := r.ReadAt(head, 8); err != nil {
		return 0, nil, fmt.Errorf("read header: %w", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(head, &raw); err != nil {
		return 0, nil, fmt.Errorf("header: %w", err)
	}
	base = 8 + int64(n)
	entries = make(map[string]stEntry, len(raw))
	for name, msg := range raw {
		if name == "__metadata__" {
			continue
		}
		var e stEntry
		if err := json.Unmarshal(msg, &e); err != nil {
			return 0, nil, fmt.Errorf("header entry %q: %w", name, err)
		}
		if err := e.check(size - base); err != nil {
			return 0, nil, fmt.Errorf("tensor %q: %w", name, err)
		}
		entries[name] = e
	}
	return base, entries, nil
}

func (e stEntry) check(dataLen int64) error {
	size, ok := stDTypeSize[e.DType]
	if !ok {
		return fmt.Errorf("unknown dtype %q", e.DType)
	}
	begin, end := e.Offsets[0], e.Offsets[1]
	if begin < 0 || begin > end || end > dataLen {
		return fmt.Errorf("data_offsets [%d, %d] outside the %d-byte data section", begin, end, dataLen)
	}
	numel := int64(1)
	for _, d := range e.Shape {
		if d < 0 || d > 0 && numel > dataLen/int64(d) {
			return fmt.Errorf("shape %v does not fit the file", e.Shape)
		}
		numel *= int64(d)
	}
	if numel*size != end-begin {
		return fmt.Errorf("shape %v of %s needs %d bytes, data_offsets give %d", e.Shape, e.DType, numel*size, end-begin)
	}
	return nil
}

// read converts the tensor's data into dst, which has its element count.
func (f *stFile) read(name string, e stEntry, dst []float32) error {
	size := stDTypeSize[e.DType]
	if e.DType != "F32" && e.DType != "F16" && e.DType != "BF16" {
		return fmt.Errorf("%s: tensor %q has dtype %s: want F32, F16 or BF16", f.path, name, e.DType)
	}
	return f.chunks(name, e, func(off int64, b []byte) { decodeFloats(dst[off/size:], b, e.DType) })
}

// chunks reads the bytes of tensor e through f's read buffer and hands
// each chunk to use with its offset in the tensor's data.
func (f *stFile) chunks(name string, e stEntry, use func(off int64, b []byte)) error {
	total := e.Offsets[1] - e.Offsets[0]
	buf := f.chunk(total)
	for off := int64(0); off < total; {
		b := buf[:min(int64(len(buf)), total-off)]
		if _, err := f.r.ReadAt(b, f.base+e.Offsets[0]+off); err != nil {
			return fmt.Errorf("%s: tensor %q: %w", f.path, name, err)
		}
		use(off, b)
		off += int64(len(b))
	}
	return nil
}

// decodeFloats converts little-endian F32, F16 or BF16 values in src.
func decodeFloats(dst []float32, src []byte, dtype string) {
	switch dtype {
	case "F32":
		for i := range len(src) / 4 {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
	case "BF16":
		for i := range len(src) / 2 {
			dst[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(src[2*i:])) << 16)
		}
	case "F16":
		for i := range len(src) / 2 {
			dst[i] = halfToFloat32(binary.LittleEndian.Uint16(src[2*i:]))
		}
	}
}

// halfToFloat32 converts an IEEE 754 binary16 value exactly.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
	}
	f := float32(mant) / (1 << 24) // zero or subnormal: mant · 2⁻²⁴
	if sign != 0 {
		f = -f
	}
	return f
}

// openSafetensors opens and parses a file; the caller closes it.
func openSafetensors(path string) (*stFile, io.Closer, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	base, entries, err := parseSafetensors(fh, st.Size())
	if err != nil {
		fh.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return &stFile{path: path, r: fh, base: base, entries: entries}, fh, nil
}

// ReadSafetensors reads every tensor of a safetensors file as float32. It
// accepts F32, F16 and BF16 tensors and fails on other dtypes.
func ReadSafetensors(path string) (map[string]Tensor, error) {
	f, c, err := openSafetensors(path)
	if err != nil {
		return nil, fmt.Errorf("policy: read safetensors: %w", err)
	}
	defer c.Close()
	out, err := f.readAll()
	if err != nil {
		return nil, fmt.Errorf("policy: read safetensors: %w", err)
	}
	return out, nil
}

func (f *stFile) readAll() (map[string]Tensor, error) {
	out := make(map[string]Tensor, len(f.entries))
	for name, e := range f.entries {
		n := (e.Offsets[1] - e.Offsets[0]) / stDTypeSize[e.DType]
		t := Tensor{Shape: slices.Clone(e.Shape), Data: make([]float32, n)}
		if err := f.read(name, e, t.Data); err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}

// WriteSafetensors atomically writes the tensors as F32 (BF16 where a
// tensor gives its BF16 bits), in the given order, with metadata
// {"format": "pt"} (which HuggingFace transformers expects). Names must be
// distinct and non-empty, and each tensor must have the element count of
// its Shape, in Data or in BF16 but not both.
func WriteSafetensors(path string, tensors []NamedTensor) error {
	head, err := stHeader(tensors)
	if err != nil {
		return fmt.Errorf("policy: write safetensors %s: %w", path, err)
	}
	err = atomicfile.Write(path, 0o644, func(w io.Writer) error {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(head)))
		if _, err := w.Write(n[:]); err != nil {
			return err
		}
		if _, err := w.Write(head); err != nil {
			return err
		}
		buf := make([]byte, 0, stChunk)
		for _, t := range tensors {
			if err := writeValues(w, buf, t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("policy: write safetensors: %w", err)
	}
	return nil
}

// writeValues writes t's values little-endian through buf (stChunk
// bytes at a time): Data as F32, or BF16.
func writeValues(w io.Writer, buf []byte, t NamedTensor) error {
	for i := 0; i < len(t.Data); i += stChunk / 4 {
		buf = buf[:0]
		for _, v := range t.Data[i:min(i+stChunk/4, len(t.Data))] {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	for i := 0; i < len(t.BF16); i += stChunk / 2 {
		buf = buf[:0]
		for _, h := range t.BF16[i:min(i+stChunk/2, len(t.BF16))] {
			buf = binary.LittleEndian.AppendUint16(buf, h)
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// stHeader builds the JSON header, padded with spaces so the data starts at a
// multiple of 8 bytes.
func stHeader(tensors []NamedTensor) ([]byte, error) {
	head := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	var off int64
	for _, t := range tensors {
		numel := 1
		for _, d := range t.Shape {
			numel *= d
		}
		switch {
		case t.Name == "" || t.Name == "__metadata__":
			return nil, fmt.Errorf("tensor name %q is reserved or empty", t.Name)
		case head[t.Name] != nil:
			return nil, fmt.Errorf("tensor %q given twice", t.Name)
		case t.Data != nil && t.BF16 != nil:
			return nil, fmt.Errorf("tensor %q has both float32 and bfloat16 values", t.Name)
		case slices.ContainsFunc(t.Shape, func(d int) bool { return d < 0 }) || numel != t.values():
			return nil, fmt.Errorf("tensor %q has shape %v but %d values", t.Name, t.Shape, t.values())
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		dtype, end := "F32", off+4*int64(len(t.Data))
		if t.BF16 != nil {
			dtype, end = "BF16", off+2*int64(len(t.BF16))
		}
		head[t.Name] = stEntry{DType: dtype, Shape: shape, Offsets: [2]int64{off, end}}
		off = end
	}
	b, err := json.Marshal(head)
	if err != nil {
		return nil, err
	}
	if pad := (8 - (8+len(b))%8) % 8; pad > 0 {
		b = append(b, bytes.Repeat([]byte{' '}, pad)...)
	}
	return b, nil
}

// hfModelConfig is config.json as HuggingFace transformers writes it for
// Qwen2: the Config keys plus what identifies the architecture.
type hfModelConfig struct {
	Architectures    []string        `json:"architectures"`
	ModelType        string          `json:"model_type"`
	HiddenAct        string          `json:"hidden_act"`
	TorchDtype       string          `json:"torch_dtype"`
	RopeScaling      json.RawMessage `json:"rope_scaling,omitempty"`
	UseSlidingWindow bool            `json:"use_sliding_window,omitempty"`
	Config
}

// LoadModel reads a model folder: config.json (extra keys of HuggingFace
// configs are ignored) and model.safetensors, or the shards listed in
// model.safetensors.index.json. Tensors may be F32, F16 or BF16. Every tensor
// the config implies must be present with its shape; lm_head.weight may be
// absent when tie_word_embeddings is true (the head is the embedding).
// Tensors the model does not use are ignored.
func LoadModel(dir string) (*Model, error) { return loadModel(dir, newShell) }

// loadModel is LoadModel into the parameters shell allocates; a frozen
// one (LoadModel16) takes a BF16 tensor's bits as they are and rounds an
// F32 or F16 one through a float32 scratch (readParam).
func loadModel(dir string, shell func(Config, backend.Backend) *Model) (*Model, error) {
	cfg, err := readModelConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("policy: load model: %w", err)
	}
	be, err := defaultBackend()
	if err != nil {
		return nil, err
	}
	m := shell(cfg, be)
	files, where, closers, err := openWeights(dir)
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	if err != nil {
		return nil, fmt.Errorf("policy: load model: %w", err)
	}
	var scratch []float32 // a frozen parameter's F32 or F16 values, read then rounded
	for _, p := range m.Params {
		f, ok := where[p.Name]
		if !ok {
			return nil, fmt.Errorf("policy: load model: %s: tensor %q is missing", files, p.Name)
		}
		e := f.entries[p.Name]
		if !slices.Equal(e.Shape, p.Shape) {
			return nil, fmt.Errorf("policy: load model: %s: tensor %q has shape %v, want %v", f.path, p.Name, e.Shape, p.Shape)
		}
		if err := f.readParam(p, e, &scratch); err != nil {
			return nil, fmt.Errorf("policy: load model: %w", err)
		}
	}
	return m, nil
}

// ReadConfig reads dir/config.json as LoadModel does (defaults filled,
// unsupported settings refused) without opening any weight file.
func ReadConfig(dir string) (Config, error) {
	cfg, err := readModelConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		return Config{}, fmt.Errorf("policy: read config: %w", err)
	}
	return cfg, nil
}

// readModelConfig decodes config.json, filling keys a HuggingFace Qwen2
// config may omit with Qwen2Config's defaults, and validates it. Settings
// that would change what the model computes and that it does not implement
// (another model_type, rope_scaling, sliding-window attention) are errors
// rather than silently ignored.
func readModelConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	var hf hfModelConfig
	if err := json.Unmarshal(data, &hf); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case hf.ModelType != "" && hf.ModelType != "qwen2":
		return Config{}, fmt.Errorf("%s: model_type %q is not supported: want qwen2", path, hf.ModelType)
	case hf.HiddenAct != "" && hf.HiddenAct != "silu":
		return Config{}, fmt.Errorf("%s: hidden_act %q is not supported: want silu", path, hf.HiddenAct)
	case len(hf.RopeScaling) > 0 && string(hf.RopeScaling) != "null":
		return Config{}, fmt.Errorf("%s: rope_scaling %s is not supported: remove it or set it to null (plain rotary positions)", path, hf.RopeScaling)
	case hf.UseSlidingWindow:
		return Config{}, fmt.Errorf("%s: use_sliding_window true is not supported: set it to false (full causal attention)", path)
	}
	cfg := hf.Config
	if cfg.NumKeyValueHeads == 0 {
		cfg.NumKeyValueHeads = cfg.NumAttentionHeads
	}
	if cfg.RopeTheta == 0 {
		cfg.RopeTheta = 10000
	}
	if cfg.RMSNormEps == 0 {
		cfg.RMSNormEps = 1e-6
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// openWeights opens model.safetensors, or else the shards named by
// model.safetensors.index.json, and maps each tensor name to its file. desc
// names what was opened, for errors.
func openWeights(dir string) (desc string, where map[string]*stFile, closers []io.Closer, err error) {
	single := filepath.Join(dir, "model.safetensors")
	paths := []string{single}
	desc = single
	if _, err := os.Stat(single); errors.Is(err, fs.ErrNotExist) {
		index := filepath.Join(dir, "model.safetensors.index.json")
		if paths, err = readShardIndex(index); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return desc, nil, nil, fmt.Errorf("%s: neither it nor model.safetensors.index.json exists", single)
			}
			return index, nil, nil, err
		}
		desc = index
	}
	where = map[string]*stFile{}
	for _, p := range paths {
		f, c, err := openSafetensors(p)
		if err != nil {
			return desc, nil, closers, err
		}
		closers = append(closers, c)
		for name := range f.entries {
			where[name] = f
		}
	}
	return desc, where, closers, nil
}

// readShardIndex returns the distinct shard files of an index, sorted.
func readShardIndex(index string) ([]string, error) {
	data, err := os.ReadFile(index)
	if err != nil {
		return nil, err
	}
	var idx struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("%s: %w", index, err)
	}
	seen := map[string]bool{}
	var paths []string
	for _, file := range idx.WeightMap {
		if file != filepath.Base(file) {
			return nil, fmt.Errorf("%s: shard %q is not a file name in the same folder", index, file)
		}
		if !seen[file] {
			seen[file] = true
			paths = append(paths, filepath.Join(filepath.Dir(index), file))
		}
	}
	sort.Strings(paths)
	return paths, nil
}
