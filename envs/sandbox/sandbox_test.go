package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/artist-rl/artist/envs"
)

func newSandbox(t testing.TB, cfg Config) *Sandbox {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

const factorial30 = `package main

import (
	"fmt"
	"math/big"
)

func main() {
	f := big.NewInt(1)
	for i := int64(2); i <= 30; i++ {
		f.Mul(f, big.NewInt(i))
	}
	fmt.Println(f)
}
`

const heapProgram = `package main

import (
	"container/heap"
	"fmt"
)

type ints []int

func (h ints) Len() int           { return len(h) }
func (h ints) Less(i, j int) bool { return h[i] < h[j] }
func (h ints) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *ints) Push(x any)        { *h = append(*h, x.(int)) }
func (h *ints) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func main() {
	h := &ints{5, 2, 9, 1}
	heap.Init(h)
	for h.Len() > 0 {
		fmt.Print(heap.Pop(h), " ")
	}
	fmt.Println()
}
`

const sieve = `package main

import "fmt"

func main() {
	const n = 50
	composite := make([]bool, n+1)
	for i := 2; i*i <= n; i++ {
		for j := i * i; j <= n; j += i {
			composite[j] = true
		}
	}
	for i := 2; i <= n; i++ {
		if !composite[i] {
			fmt.Print(i, " ")
		}
	}
	fmt.Println()
}
`

func TestCallOutput(t *testing.T) {
	s := newSandbox(t, DefaultConfig())
	tests := []struct {
		name, input, want string
	}{
		{"snippet arithmetic", "fmt.Println(4821 * 37)", "178377\n"},
		{"snippet statements", "x := 17 % 5\nfmt.Println(x)", "2\n"},
		{"program big factorial", factorial30, "265252859812191058636308480000000\n"},
		{"program prime sieve", sieve, "2 3 5 7 11 13 17 19 23 29 31 37 41 43 47 \n"},
		{"float formatting", "a, b := 0.1, 0.2\nfmt.Printf(\"%.4f %v %s\\n\", math.Sqrt(2), a+b, strconv.FormatFloat(2.5, 'e', 2, 64))",
			"1.4142 0.30000000000000004 2.50e+00\n"},
		{"sort", "import \"sort\"\nw := []string{\"pear\", \"fig\", \"apple\"}\nsort.Strings(w)\nn := []int{5, 2, 9}\nsort.Sort(sort.Reverse(sort.IntSlice(n)))\nfmt.Println(w, n)",
			"[apple fig pear] [9 5 2]\n"},
		{"pre-imported packages", "fmt.Println(strings.Repeat(\"ab\", 3), strconv.Itoa(7), math.Sqrt(16))", "ababab 7 4\n"},
		{"snippet imports fmt itself", "import \"fmt\"\nfmt.Println(1)", "1\n"},
		{"snippet grouped and aliased imports", "import (\n\tb \"math/big\"\n\t\"math/bits\"\n)\nfmt.Println(b.NewInt(9), bits.OnesCount(7))", "9 3\n"},
		{"snippet var and const first", "var a = 3\nconst b = 4\nfmt.Println(a * b)", "12\n"},
		{"snippet funcs between statements", "func f() int { return 3 }\nfmt.Println(f())\nfunc g() int { return f() + 1 }\nfmt.Println(g())", "3\n4\n"},
		{"snippet type with String method", "type T struct{ n int }\nfunc (t T) String() string { return fmt.Sprint(\"T\", t.n) }\nfmt.Println(T{7})", "T7\n"},
		{"snippet func main without package", "func main() {\n\tfmt.Println(\"m\")\n}", "m\n"},
		{"snippet func literal", "func() { fmt.Println(\"lit\") }()", "lit\n"},
		{"snippet block statements", "for i := 0; i < 3; i++ {\n\tif i%2 == 0 {\n\t\tfmt.Println(i)\n\t}\n}", "0\n2\n"},
		{"comments", "// product\nconst k = 3 // three\n/* block */ fmt.Println(k)", "3\n"},
		{"print builtin", "println(5)", "5\n"},
		{"other allowed packages", "import (\"bytes\"; \"errors\"; \"unicode\")\nfmt.Println(bytes.ToUpper([]byte(\"x\"))[0], errors.New(\"e\"), unicode.IsDigit('7'))", "88 e true\n"},
		{"regexp and utf8", "import (\"regexp\"; \"unicode/utf8\")\nfmt.Println(regexp.MustCompile(`\\d+`).FindAllString(\"a1b22\", -1), utf8.RuneCountInString(\"héé\"))", "[1 22] 3\n"},
		{"math/cmplx", "import \"math/cmplx\"\nfmt.Printf(\"%.3f\\n\", cmplx.Abs(3+4i))", "5.000\n"},
		{"container/heap with an interpreted type", heapProgram, "1 2 5 9 \n"},
		{"main declared in a snippet runs once", "func main() { fmt.Println(\"m\") }\nfmt.Println(2)", "m\n2\n"},
		{"invalid UTF-8 is kept", "fmt.Print(\"a\\xffb\")", "a\xffb"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := s.Call(context.Background(), tc.input)
			want := envs.Result{Status: envs.StatusOK, Output: tc.want}
			if got != want {
				t.Errorf("Call(%q) = %+v, want %+v", tc.input, got, want)
			}
		})
	}
}

func TestCallFailures(t *testing.T) {
	s := newSandbox(t, DefaultConfig())
	tests := []struct {
		name, input string
		status      envs.Status
		output      string // exact Output
		errPart     string // substring of Error
	}{
		{"expression value is not printed", "4821 * 37", envs.StatusEmpty, EmptyOutput, ""},
		{"assignment only", "x := 5", envs.StatusEmpty, EmptyOutput, ""},
		{"undefined name", "fmt.Println(undefinedVar)", envs.StatusError, "error: undefined: undefinedVar", "undefined: undefinedVar"},
		{"syntax error", "x := \nfmt.Println(", envs.StatusError, "error: expected operand, found '}'", "expected operand"},
		{"type error", "var x int = \"s\"", envs.StatusError, "error: cannot convert \"s\" to int", "cannot convert"},
		{"package not imported", "s := []int{2, 1}\nsort.Ints(s)", envs.StatusError, "error: undefined: sort", "undefined: sort"},
		{"program without its imports", "package main\nfunc main() { fmt.Println(1) }", envs.StatusError, "error: undefined: fmt", "undefined: fmt"},
		{"explicit panic", "panic(\"boom\")", envs.StatusError, "error: panic: boom", "panic: main"},
		{"index out of range", "var a []int\nfmt.Println(a[3])", envs.StatusError, "error: panic: reflect: slice index out of range", "out of range"},
		{"divide by zero at run time", "a := 0\nfmt.Println(1 / a)", envs.StatusError, "error: panic: runtime error: integer divide by zero", "divide by zero"},
		{"nil map write", "var m map[string]int\nm[\"a\"] = 1", envs.StatusError, "error: panic: assignment to entry in nil map", "nil map"},
		{"go statement", "go func() { panic(1) }()", envs.StatusError, "error: go statements are not allowed", "go statements"},
		{"scan reads nothing", "var n int\n_, err := fmt.Scan(&n)\nfmt.Println(n, err)", envs.StatusOK, "0 EOF\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := s.Call(context.Background(), tc.input)
			if got.Status != tc.status || got.Output != tc.output || !strings.Contains(got.Error, tc.errPart) {
				t.Errorf("Call(%q) = %+v, want status %s, output %q, error containing %q",
					tc.input, got, tc.status, tc.output, tc.errPart)
			}
		})
	}
}

func TestDeniedImports(t *testing.T) {
	s := newSandbox(t, DefaultConfig())
	tests := []struct{ name, input, pkg string }{
		{"os", "import \"os\"\nos.Exit(3)", "os"},
		{"net", "import \"net\"\nnet.Dial(\"tcp\", \"x:1\")", "net"},
		{"os/exec", "import \"os/exec\"\nexec.Command(\"ls\").Run()", "os/exec"},
		{"unsafe", "import \"unsafe\"\nfmt.Println(unsafe.Sizeof(1))", "unsafe"},
		{"syscall", "import \"syscall\"\nsyscall.Exit(3)", "syscall"},
		{"reflect", "import \"reflect\"\nfmt.Println(reflect.TypeOf(1))", "reflect"},
		{"runtime", "import \"runtime\"\nruntime.GC()", "runtime"},
		{"in a program", "package main\nimport (\"fmt\"; \"os\")\nfunc main() { fmt.Println(os.Args) }", "os"},
		{"in a group after allowed ones", "import (\n\t\"math/big\"\n\t\"net/http\"\n)\n", "net/http"},
		{"aliased", "import o \"os\"\no.Exit(1)", "os"},
		{"blank", "import _ \"os\"", "os"},
		{"dot", "import . \"os\"\nExit(1)", "os"},
		{"not whitelisted generic package", "import \"slices\"\nfmt.Println(slices.Max([]int{1}))", "slices"},
		{"io/ioutil", "import \"io/ioutil\"\nioutil.ReadFile(\"/etc/passwd\")", "io/ioutil"},
		{"path/filepath", "import \"path/filepath\"\nfilepath.Glob(\"/*\")", "path/filepath"},
		{"plugin", "import \"plugin\"\nplugin.Open(\"x.so\")", "plugin"},
		{"log", "import \"log\"\nlog.Fatal(1)", "log"},
		{"time", "import \"time\"\ntime.Sleep(time.Hour)", "time"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := s.Call(context.Background(), tc.input)
			want := fmt.Sprintf("error: import %q is not allowed", tc.pkg)
			if got.Status != envs.StatusError || !strings.HasPrefix(got.Output, want) || got.Error == "" {
				t.Errorf("Call(%q) = %+v, want an error result starting %q", tc.input, got, want)
			}
		})
	}
}

// TestHostStdoutUntouched proves that printing reaches the result, not the
// process's standard output.
func TestHostStdoutUntouched(t *testing.T) {
	s := newSandbox(t, DefaultConfig())
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	orig := os.Stdout
	os.Stdout = w
	got := s.Call(context.Background(), "fmt.Println(\"a\")\nfmt.Print(\"b\")\nfmt.Printf(\"%d\\n\", 3)\nprintln(\"c\")")
	os.Stdout = orig
	w.Close()
	leaked, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if got.Output != "a\nb3\nc\n" || len(leaked) != 0 {
		t.Errorf("Output %q, host stdout %q; want %q and nothing", got.Output, leaked, "a\nb3\nc\n")
	}
}

func TestTruncation(t *testing.T) {
	tests := []struct {
		name, input string
		max         int
		want        string
	}{
		{"exactly at the limit", "fmt.Print(\"abcde\")", 5, "abcde"},
		{"one byte over", "fmt.Print(\"abcdef\")", 5, "abcde" + TruncatedMarker},
		{"many writes", "for i := 0; i < 1000; i++ { fmt.Print(\"xy\") }", 7, "xyxyxyx" + TruncatedMarker},
		{"cut inside a rune", "fmt.Print(\"ééé\")", 5, "éé" + TruncatedMarker},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t, Config{Timeout: 2 * time.Second, MaxOutput: tc.max})
			got := s.Call(context.Background(), tc.input)
			if got.Status != envs.StatusOK || got.Output != tc.want {
				t.Errorf("Call(%q) = %+v, want ok %q", tc.input, got, tc.want)
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	s := newSandbox(t, Config{Timeout: timeout, MaxOutput: 4096})
	tests := []struct{ name, input string }{
		{"empty loop", "for {}"},
		{"loop printing nothing", "for { fmt.Print(\"\") }"},
		{"loop in a function", "func f() int { n := 0; for { n++ } }\nfmt.Println(f())"},
		{"blocked channel", "c := make(chan int)\n<-c"},
	}
	s.Call(context.Background(), "") // start a worker: its process has goroutines of its own
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			start := time.Now()
			got := s.Call(context.Background(), tc.input)
			elapsed := time.Since(start)
			want := envs.Result{Status: envs.StatusTimeout, Output: "error: timeout after 300ms", Error: "timeout after 300ms"}
			if got != want || elapsed > timeout+time.Second {
				t.Errorf("Call(%q) = %+v after %v, want %+v within %v", tc.input, got, elapsed, want, timeout+time.Second)
			}
			// Nothing of the call may keep running in the calling process.
			deadline := time.Now().Add(2 * time.Second)
			for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				t.Errorf("%d goroutines still running after the timeout, %d before the call", n, before)
			}
		})
	}
}

func TestCanceledContext(t *testing.T) {
	s := newSandbox(t, DefaultConfig())
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	got := s.Call(ctx, "for {}")
	if got.Status != envs.StatusError || got.Output != "error: call canceled" || got.Error != context.Canceled.Error() {
		t.Errorf("Call with a canceled context = %+v, want an error result", got)
	}
}

// TestBusyPool proves a call waiting for a worker still ends at its
// context's deadline, as a timeout.
func TestBusyPool(t *testing.T) {
	s := newSandbox(t, Config{Timeout: 2 * time.Second, MaxOutput: 4096, Workers: 1})
	done := make(chan envs.Result)
	go func() { done <- s.Call(context.Background(), "for {}") }()
	time.Sleep(100 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	got := s.Call(ctx, "fmt.Println(1)")
	if got.Status != envs.StatusTimeout || time.Since(start) > time.Second {
		t.Errorf("waiting call = %+v after %v, want a timeout after 200ms", got, time.Since(start))
	}
	if r := <-done; r.Status != envs.StatusTimeout {
		t.Errorf("running call = %+v, want a timeout", r)
	}
}

func TestConcurrentCalls(t *testing.T) {
	s := newSandbox(t, DefaultConfig())
	const n = 24
	var wg sync.WaitGroup
	got := make([]envs.Result, n)
	for i := range n {
		wg.Go(func() {
			switch i % 3 {
			case 0:
				got[i] = s.Call(context.Background(), fmt.Sprintf("fmt.Println(%d * 37)", i))
			case 1:
				got[i] = s.Call(context.Background(), fmt.Sprintf("import \"os\"\nfmt.Println(%d)", i))
			default:
				got[i] = s.Call(context.Background(), fmt.Sprintf("for i := 0; i < 2000; i++ { fmt.Print(\"\") }\npanic(%d)", i))
			}
		})
	}
	wg.Wait()
	for i, r := range got {
		var want envs.Status
		var out string
		switch i % 3 {
		case 0:
			want, out = envs.StatusOK, fmt.Sprintf("%d\n", i*37)
		case 1:
			want, out = envs.StatusError, "error: import \"os\" is not allowed"
		default:
			want, out = envs.StatusError, fmt.Sprintf("error: panic: %d", i)
		}
		if r.Status != want || !strings.HasPrefix(r.Output, out) {
			t.Errorf("call %d = %+v, want status %s and output %q", i, r, want, out)
		}
	}
}

func TestConfig(t *testing.T) {
	def := DefaultConfig()
	tests := []struct {
		name    string
		yaml    string
		want    Config
		wantErr string
	}{
		{"defaults", "", def, ""},
		{"overrides", "timeout: 500ms\nmax_output: 100\nmemory: 268435456\nworkers: 3\nstateful: true\n",
			Config{Timeout: 500 * time.Millisecond, MaxOutput: 100, Memory: 256 << 20, Workers: 3, Stateful: true}, ""},
		{"zero timeout", "timeout: 0s\n", Config{MaxOutput: 4096, Memory: def.Memory}, "sandbox: timeout must be positive"},
		{"negative max_output", "max_output: -1\n", Config{Timeout: 2 * time.Second, MaxOutput: -1, Memory: def.Memory}, "sandbox: max_output must be at least 1"},
		{"memory too small", "memory: 1000\n", Config{Timeout: 2 * time.Second, MaxOutput: 4096, Memory: 1000}, "sandbox: memory must be at least 67108864"},
		{"negative workers", "workers: -1\n", Config{Timeout: 2 * time.Second, MaxOutput: 4096, Memory: def.Memory, Workers: -1}, "sandbox: workers must be 0"},
		{"cpus", "cpus: [0]\n", Config{Timeout: 2 * time.Second, MaxOutput: 4096, Memory: def.Memory, CPUs: []int{0}}, ""},
		{"negative cpu", "cpus: [-1]\n", Config{Timeout: 2 * time.Second, MaxOutput: 4096, Memory: def.Memory, CPUs: []int{-1}}, "sandbox: cpus holds -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			dec := yaml.NewDecoder(strings.NewReader(tc.yaml))
			dec.KnownFields(true)
			if err := dec.Decode(&cfg); err != nil && err != io.EOF {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg, tc.want) {
				t.Errorf("decoded %+v, want %+v", cfg, tc.want)
			}
			s, err := New(cfg)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)) {
				t.Errorf("New(%+v) error %v, want %q", cfg, err, tc.wantErr)
			}
			if s != nil {
				s.Close()
			}
		})
	}
}

// TestClose proves that Close interrupts a running call, and that calls
// made afterwards are answered without a worker.
func TestClose(t *testing.T) {
	s := newSandbox(t, DefaultConfig())
	if r := s.Call(context.Background(), "fmt.Println(1)"); r.Status != envs.StatusOK {
		t.Fatalf("first call = %+v", r)
	}
	running := make(chan envs.Result)
	go func() { running <- s.Call(context.Background(), "for {}") }()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	s.Close()
	want := envs.Result{Status: envs.StatusError, Output: "error: sandbox closed", Error: "sandbox: closed"}
	if r := <-running; r != want || time.Since(start) > time.Second {
		t.Errorf("call interrupted by Close = %+v after %v, want %+v at once", r, time.Since(start), want)
	}
	if r := s.Call(context.Background(), "fmt.Println(1)"); r != want {
		t.Errorf("call after Close = %+v, want %+v", r, want)
	}
	s.Close() // a second Close is harmless
}
