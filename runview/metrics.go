package runview

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
)

// maxChunk bounds the bytes of metrics.jsonl one answer reads; the client
// asks again for the rest.
const maxChunk = 32 << 20

// checkBytes is how many bytes before an offset its fingerprint covers.
const checkBytes = 256

// Metrics is one answer of /api/metrics: the complete lines of
// metrics.jsonl from the asked offset, in columns.
type Metrics struct {
	Offset int64                `json:"offset"` // where the next call starts
	Check  string               `json:"check"`  // fingerprint to send with it
	Reset  bool                 `json:"reset"`  // the file was rewritten: drop what came before
	Steps  []float64            `json:"steps"`
	Series map[string][]float64 `json:"series"` // NaN (null in JSON): the step has no value
}

// MarshalJSON writes NaN and infinities as null.
func (m *Metrics) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"offset":%d,"check":%q,"reset":%v,"steps":`, m.Offset, m.Check, m.Reset)
	floats(&b, m.Steps)
	b.WriteString(`,"series":{`)
	first := true
	for k, v := range m.Series {
		if !first {
			b.WriteByte(',')
		}
		first = false
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		floats(&b, v)
	}
	b.WriteString("}}")
	return b.Bytes(), nil
}

func floats(b *bytes.Buffer, v []float64) {
	b.WriteByte('[')
	buf := make([]byte, 0, 24)
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b.WriteString("null")
			continue
		}
		b.Write(strconv.AppendFloat(buf[:0], x, 'g', -1, 64))
	}
	b.WriteByte(']')
}

// ReadMetrics reads the complete lines of the run's metrics.jsonl from
// offset on (see the package doc for check and Reset). A run that has no
// metrics.jsonl yet has no steps.
func (run Run) ReadMetrics(offset int64, check string) (*Metrics, error) {
	out := &Metrics{Series: map[string][]float64{}}
	f, err := os.OpenInRoot(run.Dir, "metrics.jsonl")
	if errors.Is(err, fs.ErrNotExist) {
		out.Reset = offset != 0
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("runview: metrics: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("runview: metrics: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("runview: metrics.jsonl is not a regular file")
	}
	size := st.Size()
	if offset < 0 || offset > size || fingerprint(f, offset) != check {
		out.Reset = offset != 0
		offset = 0
	}
	buf := make([]byte, min(size-offset, maxChunk))
	n, err := f.ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("runview: metrics: %w", err)
	}
	buf = buf[:n]
	end := bytes.LastIndexByte(buf, '\n') + 1 // a torn last line waits for its newline
	parseMetrics(buf[:end], out)
	out.Offset = offset + int64(end)
	out.Check = fingerprint(f, out.Offset)
	return out, nil
}

// fingerprint hashes the bytes before offset, which must end a line; ""
// at offset 0 and "x" where offset does not follow a newline.
func fingerprint(f io.ReaderAt, offset int64) string {
	if offset <= 0 {
		return ""
	}
	lo := max(0, offset-checkBytes)
	b := make([]byte, offset-lo)
	if n, _ := f.ReadAt(b, lo); n != len(b) || b[len(b)-1] != '\n' {
		return "x"
	}
	h := fnv.New64a()
	h.Write(b)
	return strconv.FormatUint(h.Sum64(), 36)
}

// parseMetrics appends the records of data's lines to m's columns. A line
// that is not a JSON object is skipped; so are values that are not
// numbers (null becomes NaN). A record without "step" follows the last.
func parseMetrics(data []byte, m *Metrics) {
	idx := map[string]int{}
	var names []string
	var cols [][]float64
	var rec []field
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data
		if i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		var ok bool
		if rec, ok = scanFlat(line, rec[:0]); !ok {
			if rec, ok = decodeSlow(line, rec[:0]); !ok {
				continue
			}
		}
		row := len(m.Steps)
		step := math.NaN()
		for _, f := range rec {
			if string(f.key) == "step" {
				step = f.val
			}
		}
		if math.IsNaN(step) {
			step = float64(row)
			if row > 0 {
				step = m.Steps[row-1] + 1
			}
		}
		m.Steps = append(m.Steps, step)
		for _, f := range rec {
			if string(f.key) == "step" {
				continue
			}
			c, seen := idx[string(f.key)]
			if !seen {
				c = len(cols)
				idx[string(f.key)] = c
				names = append(names, string(f.key))
				col := make([]float64, row, row+16)
				for j := range col {
					col[j] = math.NaN()
				}
				cols = append(cols, col)
			}
			if len(cols[c]) == row { // a key twice in one record keeps the first
				cols[c] = append(cols[c], f.val)
			}
		}
		for c := range cols {
			if len(cols[c]) == row {
				cols[c] = append(cols[c], math.NaN())
			}
		}
	}
	for c, name := range names {
		m.Series[name] = cols[c]
	}
}

// field is one numeric (or null: NaN) value of a record.
type field struct {
	key []byte
	val float64
}

// scanFlat reads a flat JSON object of numbers and nulls, the form the
// trainer writes, without allocating per value. It reports false for
// anything else (escaped keys, strings, nesting, bad syntax), which
// decodeSlow then reads.
func scanFlat(b []byte, out []field) ([]field, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return out, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return out, skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return out, false
		}
		j := i + 1
		for j < len(b) && b[j] != '"' && b[j] != '\\' {
			j++
		}
		if j >= len(b) || b[j] != '"' {
			return out, false
		}
		key := b[i+1 : j]
		i = skipSpace(b, j+1)
		if i >= len(b) || b[i] != ':' {
			return out, false
		}
		i = skipSpace(b, i+1)
		j = i
		for j < len(b) && strings.IndexByte("0123456789+-.eEnul", b[j]) >= 0 {
			j++
		}
		tok := b[i:j]
		var v float64
		if string(tok) == "null" {
			v = math.NaN()
		} else {
			x, err := strconv.ParseFloat(string(tok), 64)
			if err != nil {
				return out, false
			}
			v = x
		}
		out = append(out, field{key, v})
		i = skipSpace(b, j)
		if i >= len(b) {
			return out, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return out, skipSpace(b, i+1) == len(b)
		default:
			return out, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// decodeSlow reads any JSON object, keeping its numbers and nulls.
func decodeSlow(line []byte, out []field) ([]field, bool) {
	var rec map[string]any
	if json.Unmarshal(line, &rec) != nil || rec == nil {
		return out, false
	}
	for k, v := range rec {
		switch v := v.(type) {
		case float64:
			out = append(out, field{[]byte(k), v})
		case nil:
			out = append(out, field{[]byte(k), math.NaN()})
		}
	}
	return out, true
}

func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	run, err := s.run(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	q := r.URL.Query()
	var offset int64
	if v := q.Get("offset"); v != "" {
		if offset, err = strconv.ParseInt(v, 10, 64); err != nil {
			writeError(w, http.StatusBadRequest, fmt.Errorf("runview: offset %q is not a byte offset", v))
			return
		}
	}
	m, err := run.ReadMetrics(offset, q.Get("check"))
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	b, _ := m.MarshalJSON()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}
