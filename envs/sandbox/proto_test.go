package sandbox

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/frame"
)

func TestMessageRoundTrip(t *testing.T) {
	tests := []struct {
		name     string
		in, into frame.Message
	}{
		{"hello", &hello{MaxOutput: 4096, Memory: 512 << 20}, &hello{}},
		{"ready", &ready{Err: "no"}, &ready{}},
		{"request", &request{Session: 7, Drop: []uint64{1, 300}, Code: "fmt.Println(1)\n", Timeout: 2 * time.Second}, &request{}},
		{"empty request", &request{}, &request{}},
		{"reply", &reply{Status: envs.StatusOK, Stdout: "a\xff\x00b", Truncated: true, Message: "m", Err: "e", Retire: true}, &reply{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := frame.Write(&buf, tc.in); err != nil {
				t.Fatal(err)
			}
			if err := frame.Read(&buf, tc.into); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(normalize(tc.in), normalize(tc.into)) || buf.Len() != 0 {
				t.Errorf("read %+v, wrote %+v (%d bytes left)", tc.into, tc.in, buf.Len())
			}
		})
	}
}

// normalize makes an empty drop list compare equal to a nil one.
func normalize(m frame.Message) frame.Message {
	if r, ok := m.(*request); ok && len(r.Drop) == 0 {
		c := *r
		c.Drop = nil
		return &c
	}
	return m
}

func TestReadMsgErrors(t *testing.T) {
	tests := []struct {
		name  string
		frame string
		want  error
	}{
		{"clean end", "", io.EOF},
		{"short header", "\x00\x00", io.ErrUnexpectedEOF},
		{"short body", "\x00\x00\x00\x05ab", io.ErrUnexpectedEOF},
		{"too long", "\xff\xff\xff\xff", frame.ErrMalformed},
		{"string past the end", "\x00\x00\x00\x02\x09a", frame.ErrMalformed},
		{"trailing bytes", "\x00\x00\x00\x03\x00\x00\x00", frame.ErrMalformed},
		{"bad varint", "\x00\x00\x00\x01\x80", frame.ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r ready
			if err := frame.Read(bytes.NewReader([]byte(tc.frame)), &r); !errors.Is(err, tc.want) {
				t.Errorf("frame.Read(%q) = %v, want %v", tc.frame, err, tc.want)
			}
		})
	}
}

// FuzzReadMsg checks that no byte stream makes the decoder panic or
// allocate beyond the frame it was given.
func FuzzReadMsg(f *testing.F) {
	var buf bytes.Buffer
	_ = frame.Write(&buf, &request{Session: 1, Drop: []uint64{2}, Code: "x", Timeout: 1})
	f.Add(buf.Bytes())
	f.Add([]byte("\x00\x00\x00\x03\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var req request
		if err := frame.Read(bytes.NewReader(b), &req); err == nil && len(req.Drop) > len(b) {
			t.Fatalf("decoded %d session ids from %d bytes", len(req.Drop), len(b))
		}
		var rep reply
		_ = frame.Read(bytes.NewReader(b), &rep)
	})
}
