package sandbox

import (
	"fmt"
	"io"
	"path"
	"reflect"
	"slices"
	"sync"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// fmtKey is the export key of package fmt. yaegi treats the key "fmt/fmt" as
// the signal that the whole standard library is being loaded: it then
// compiles the generic sources of slices, maps, sync and others into every
// interpreter, which costs milliseconds per call, and binds fmt.Print* to
// the interpreter's stdout. Registering fmt under an equivalent key (yaegi
// cleans the directory part, so "fmt/." is "fmt") skips both; the printing
// functions are bound to the call's writer by printExports instead.
const fmtKey = "fmt/./fmt"

// symbols is the whitelisted part of yaegi's stdlib exports, built once and
// only read afterwards (Interpreter.Use copies it).
var symbols = sync.OnceValue(func() interp.Exports {
	ex := interp.Exports{}
	for key, syms := range stdlib.Symbols {
		switch {
		case key == ".": // type wrappers for interface arguments, no package
			ex[key] = syms
		case key == "fmt/fmt":
			ex[fmtKey] = syms
		case slices.Contains(allowedPackages, path.Dir(key)):
			ex[key] = syms
		}
	}
	return ex
})

// printExports binds fmt's printing functions to w and makes its scanning
// functions read nothing, for one interpreter. The interface-wrapping type
// lists of the originals are copied so that interpreted types with String or
// Error methods still print through them.
func printExports(w io.Writer) interp.Exports {
	eof := func() (int, error) { return 0, io.EOF }
	fns := map[string]struct{ orig, repl any }{
		"Print":   {fmt.Print, func(a ...any) (int, error) { return fmt.Fprint(w, a...) }},
		"Printf":  {fmt.Printf, func(f string, a ...any) (int, error) { return fmt.Fprintf(w, f, a...) }},
		"Println": {fmt.Println, func(a ...any) (int, error) { return fmt.Fprintln(w, a...) }},
		"Scan":    {fmt.Scan, func(...any) (int, error) { return eof() }},
		"Scanf":   {fmt.Scanf, func(string, ...any) (int, error) { return eof() }},
		"Scanln":  {fmt.Scanln, func(...any) (int, error) { return eof() }},
	}
	pkg := map[string]reflect.Value{}
	wrappers := map[reflect.Value][]reflect.Type{}
	for name, f := range fns {
		v := reflect.ValueOf(f.repl)
		pkg[name] = v
		if t, ok := stdlib.MapTypes[reflect.ValueOf(f.orig)]; ok {
			wrappers[v] = t
		}
	}
	return interp.Exports{fmtKey: pkg, ".": {"MapTypes": reflect.ValueOf(wrappers)}}
}
