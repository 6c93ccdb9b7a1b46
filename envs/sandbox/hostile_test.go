package sandbox

import "github.com/artist-rl/artist/envs"

// hostile are programs that try to reach outside the sandbox or to exhaust
// it. %[1]q in an input is a file path that must never be created.
var hostile = []struct {
	name, input string
	status      envs.Status
	message     string // prefix of Outcome.Message
}{
	{"read a file with os", "import \"os\"\nb, _ := os.ReadFile(\"/etc/passwd\")\nfmt.Println(string(b))", envs.StatusError, `import "os" is not allowed`},
	{"write a file with os", "import \"os\"\nos.WriteFile(%[1]q, []byte(\"x\"), 0o644)", envs.StatusError, `import "os" is not allowed`},
	{"write a file with io/ioutil", "import \"io/ioutil\"\nioutil.WriteFile(%[1]q, nil, 0o644)", envs.StatusError, `import "io/ioutil" is not allowed`},
	{"list files with path/filepath", "import \"path/filepath\"\nm, _ := filepath.Glob(\"/*\")\nfmt.Println(m)", envs.StatusError, `import "path/filepath" is not allowed`},
	{"dial the network", "import \"net\"\nc, err := net.Dial(\"tcp\", \"127.0.0.1:22\")\nfmt.Println(c, err)", envs.StatusError, `import "net" is not allowed`},
	{"fetch a URL", "import \"net/http\"\nhttp.Get(\"http://example.com\")", envs.StatusError, `import "net/http" is not allowed`},
	{"run a command", "import \"os/exec\"\nexec.Command(\"touch\", %[1]q).Run()", envs.StatusError, `import "os/exec" is not allowed`},
	{"read the environment", "import \"os\"\nfmt.Println(os.Environ())", envs.StatusError, `import "os" is not allowed`},
	{"read the environment with syscall", "import \"syscall\"\nfmt.Println(syscall.Environ())", envs.StatusError, `import "syscall" is not allowed`},
	{"kill the parent with syscall", "import \"syscall\"\nsyscall.Kill(syscall.Getppid(), syscall.SIGKILL)", envs.StatusError, `import "syscall" is not allowed`},
	{"unsafe pointers", "import \"unsafe\"\nx := 1\np := (*[1 << 20]byte)(unsafe.Pointer(&x))\np[1<<19] = 1", envs.StatusError, `import "unsafe" is not allowed`},
	{"reflect", "import \"reflect\"\nfmt.Println(reflect.ValueOf(fmt.Println).Pointer())", envs.StatusError, `import "reflect" is not allowed`},
	{"runtime", "import \"runtime\"\nruntime.Goexit()", envs.StatusError, `import "runtime" is not allowed`},
	{"runtime/debug", "import \"runtime/debug\"\ndebug.SetMaxStack(1 << 40)", envs.StatusError, `import "runtime/debug" is not allowed`},
	{"plugin", "import \"plugin\"\nplugin.Open(\"x.so\")", envs.StatusError, `import "plugin" is not allowed`},
	{"log.Fatal", "import \"log\"\nlog.Fatal(\"bye\")", envs.StatusError, `import "log" is not allowed`},
	{"os.Exit", "import \"os\"\nos.Exit(0)", envs.StatusError, `import "os" is not allowed`},
	{"goroutine storm", "for {\n\tgo func() { for {} }()\n}", envs.StatusError, "go statements are not allowed"},
	{"infinite loop", "for {}", envs.StatusTimeout, "timeout after 3s"},
	{"loop in a program", "package main\nfunc main() {\n\tfor i := 0; ; i++ {\n\t}\n}", envs.StatusTimeout, "timeout after 3s"},
	{"select forever", "select {}", envs.StatusTimeout, "timeout after 3s"},
	{"allocate a terabyte", "b := make([]byte, 1<<40)\nfmt.Println(len(b))", envs.StatusError, "memory limit exceeded"},
	{"huge strings.Repeat", "fmt.Println(len(strings.Repeat(\"ab\", 1<<39)))", envs.StatusError, "memory limit exceeded"},
	{"runaway append", "s := []int{1}\nfor {\n\ts = append(s, s...)\n}", envs.StatusError, "memory limit exceeded"},
	{"huge array value", "var a [1 << 31]byte\nfmt.Println(len(a))", envs.StatusError, "memory limit exceeded"},
	{"huge big.Int shift", "import \"math/big\"\nx := new(big.Int).Lsh(big.NewInt(1), 1<<40)\nfmt.Println(x.BitLen())", envs.StatusError, "memory limit exceeded"},
	{"strings.Builder growth", "var b strings.Builder\nb.Grow(1 << 40)", envs.StatusError, "memory limit exceeded"},
	{"deep recursion", "func f(n int) int { return f(n+1) + 1 }\nfmt.Println(f(0))", envs.StatusError, "stack overflow"},
	{"print loop", "for {\n\tfmt.Println(\"spam\")\n}", envs.StatusError, "output limit exceeded"},
	{"one huge print", "fmt.Print(strings.Repeat(\"x\", 64<<20))", envs.StatusError, "output limit exceeded"},
	{"long native call", "import \"math/big\"\nx := big.NewInt(3)\nx.Exp(x, big.NewInt(1<<40), nil)\nfmt.Println(x.BitLen())", envs.StatusTimeout, "timeout after 3s"},
	{"huge panic message", "panic(strings.Repeat(\"x\", 1<<20))", envs.StatusError, "panic: xxxx"},
	{"nil dereference", "var p *int\n*p = 1", envs.StatusError, "panic: "},
	{"source the interpreter fails on", "for i := range 3 {\n\tfmt.Println(i)\n}", envs.StatusError, ""},
}
