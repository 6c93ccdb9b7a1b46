package bfcl

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

type fsFile struct {
	name, content string
}

type fsDir struct {
	name     string
	parent   *fsDir
	contents *Dict // name -> *fsFile | *fsDir
}

func newDir(name string, parent *fsDir) *fsDir {
	return &fsDir{name: name, parent: parent, contents: NewDict()}
}

func (d *fsDir) item(name string) any {
	if name == "." {
		return d
	}
	v, _ := d.contents.Get(name)
	return v
}

func (d *fsDir) addFile(name, content string) error {
	if d.contents.Has(name) {
		return raisef("File '%s' already exists in directory '%s'.", name, d.name)
	}
	d.contents.Set(name, &fsFile{name: name, content: content})
	return nil
}

func (d *fsDir) addDir(name string) (*fsDir, error) {
	if d.contents.Has(name) {
		return nil, raisef("Directory '%s' already exists in directory '%s'.", name, d.name)
	}
	nd := newDir(name, d)
	d.contents.Set(name, nd)
	return nd, nil
}

func (d *fsDir) snapshot() *Dict {
	var parent any
	if d.parent != nil {
		parent = d.parent.name
	}
	c := NewDict()
	for _, k := range d.contents.Keys() {
		v, _ := d.contents.Get(k)
		switch x := v.(type) {
		case *fsFile:
			c.Set(k, NewDict("name", x.name, "content", x.content))
		case *fsDir:
			c.Set(k, x.snapshot())
		}
	}
	return NewDict("name", d.name, "parent", parent, "contents", c)
}

// fileSystem is GorillaFileSystem.
type fileSystem struct {
	root, cwd *fsDir
	long      bool
	d         *Data
}

func newFileSystem(d *Data, cfg *Dict, long bool) (api, error) {
	fs := &fileSystem{root: newDir("/", nil), long: long, d: d}
	if rv, ok := cfg.Get("root"); ok {
		r, ok := rv.(*Dict)
		if !ok || r.Len() == 0 {
			return nil, fmt.Errorf("root must be an object with one key")
		}
		name := r.Keys()[0].(string)
		top, _ := r.Get(name)
		fs.root = newDir(name, nil)
		contents, _ := top.(*Dict).Get("contents")
		fs.load(fs.root, orEmpty(asDict(contents)))
	}
	fs.cwd = fs.root
	return fs, nil
}

func asDict(v any) *Dict { d, _ := v.(*Dict); return d }

func (fs *fileSystem) load(dir *fsDir, contents *Dict) {
	leaf := true
	tail := map[string]bool{}
	for _, n := range fs.d.extension("FILES_TAIL_USED").([]any) {
		tail[n.(string)] = true
	}
	for _, k := range contents.Keys() {
		name := k.(string)
		v, _ := contents.Get(k)
		item := v.(*Dict)
		switch item.Str("type") {
		case "directory":
			leaf = false
			sub := newDir(name, dir)
			c, _ := item.Get("contents")
			fs.load(sub, orEmpty(asDict(c)))
			dir.contents.Set(name, sub)
		case "file":
			content := item.Str("content")
			if fs.long && !tail[name] {
				content += fs.d.extension("FILE_CONTENT_EXTENSION").(string)
			}
			dir.contents.Set(name, &fsFile{name: name, content: content})
		}
	}
	if leaf && fs.long {
		for _, n := range fs.d.extension("POPULATE_FILE_EXTENSION").([]any) {
			_ = dir.addFile(n.(string), "")
		}
	}
}

func (fs *fileSystem) state() *Dict {
	return NewDict("long_context", fs.long, "root", fs.root.snapshot())
}

const badNameChars = `|/\?%*:"><`

func (fs *fileSystem) methods() map[string]method {
	return map[string]method{
		"pwd":   {nil, fs.pwd},
		"ls":    {[]param{opt("a", kBool, false)}, fs.ls},
		"cd":    {[]param{req("folder", kStr)}, fs.cd},
		"mkdir": {[]param{req("dir_name", kStr)}, fs.mkdir},
		"touch": {[]param{req("file_name", kStr)}, fs.touch},
		"echo":  {[]param{req("content", kStr), opt("file_name", kStr, nil)}, fs.echo},
		"cat":   {[]param{req("file_name", kStr)}, fs.cat},
		"find":  {[]param{opt("path", kStr, "."), opt("name", kStr, nil)}, fs.find},
		"wc":    {[]param{req("file_name", kStr), opt("mode", kStr, "l")}, fs.wc},
		"sort":  {[]param{req("file_name", kStr)}, fs.sort},
		"grep":  {[]param{req("file_name", kStr), req("pattern", kStr)}, fs.grep},
		"du":    {[]param{opt("human_readable", kBool, false)}, fs.du},
		"tail":  {[]param{req("file_name", kStr), opt("lines", kAny, int64(10))}, fs.tail},
		"diff":  {[]param{req("file_name1", kStr), req("file_name2", kStr)}, fs.diff},
		"mv":    {[]param{req("source", kStr), req("destination", kStr)}, fs.mv},
		"rm":    {[]param{req("file_name", kStr)}, fs.rm},
		"rmdir": {[]param{req("dir_name", kStr)}, fs.rmdir},
		"cp":    {[]param{req("source", kStr), req("destination", kStr)}, fs.cp},
	}
}

func errDict(msg string) *Dict { return NewDict("error", msg) }

func (fs *fileSystem) pwd(args) (any, error) {
	var parts []string
	for d := fs.cwd; d != nil; d = d.parent {
		parts = append([]string{d.name}, parts...)
	}
	return NewDict("current_working_directory", "/"+strings.Join(parts, "/")), nil
}

func (fs *fileSystem) ls(a args) (any, error) {
	items := []any{}
	for _, k := range fs.cwd.contents.Keys() {
		if a.boolean("a") || !strings.HasPrefix(k.(string), ".") {
			items = append(items, k)
		}
	}
	return NewDict("current_directory_content", items), nil
}

func (fs *fileSystem) cd(a args) (any, error) {
	folder := a.str("folder")
	if folder == ".." {
		switch {
		case fs.cwd.parent != nil:
			fs.cwd = fs.cwd.parent
		case fs.cwd == fs.root:
			return errDict("Cuurent directory is already the root. Cannot go back."), nil
		default:
			return errDict("cd: ..: No such directory"), nil
		}
		return NewDict(), nil
	}
	target := fs.navigate(folder)
	if target == nil {
		return errDict(fmt.Sprintf("cd: %s: No such directory. You cannot use path to change directory.", folder)), nil
	}
	fs.cwd = target
	return NewDict("current_working_directory", target.name), nil
}

func (fs *fileSystem) navigate(path string) *fsDir {
	switch path {
	case ".":
		return fs.cwd
	case "/":
		return fs.root
	}
	t := fs.cwd
	if strings.HasPrefix(path, "/") {
		t = fs.root
	}
	for _, name := range strings.Split(strings.Trim(path, "/"), "/") {
		next, ok := t.item(name).(*fsDir)
		if !ok {
			return nil
		}
		t = next
	}
	return t
}

func (fs *fileSystem) mkdir(a args) (any, error) {
	n := a.str("dir_name")
	if strings.ContainsAny(n, badNameChars) {
		return errDict(fmt.Sprintf("mkdir: cannot create directory '%s': Invalid character", n)), nil
	}
	if fs.cwd.contents.Has(n) {
		return errDict(fmt.Sprintf("mkdir: cannot create directory '%s': File exists", n)), nil
	}
	_, err := fs.cwd.addDir(n)
	return nil, err
}

func (fs *fileSystem) touch(a args) (any, error) {
	n := a.str("file_name")
	if strings.ContainsAny(n, badNameChars) {
		return errDict(fmt.Sprintf("touch: cannot touch '%s': Invalid character", n)), nil
	}
	if fs.cwd.contents.Has(n) {
		return errDict(fmt.Sprintf("touch: cannot touch '%s': File exists", n)), nil
	}
	return nil, fs.cwd.addFile(n, "")
}

func (fs *fileSystem) echo(a args) (any, error) {
	content, n := a.str("content"), a.str("file_name")
	if n == "" {
		return NewDict("terminal_output", content), nil
	}
	if strings.ContainsAny(n, badNameChars) {
		return errDict(fmt.Sprintf("echo: cannot touch '%s': Invalid character", n)), nil
	}
	switch x := fs.cwd.item(n).(type) {
	case *fsFile:
		x.content = content
	case *fsDir:
		return nil, raisef("'Directory' object has no attribute '_write'")
	default:
		return nil, fs.cwd.addFile(n, content)
	}
	return nil, nil
}

func (fs *fileSystem) cat(a args) (any, error) {
	n := a.str("file_name")
	if strings.ContainsAny(n, badNameChars) {
		return errDict(fmt.Sprintf("cat: '%s': Invalid character", n)), nil
	}
	switch x := fs.cwd.item(n).(type) {
	case *fsFile:
		return NewDict("file_content", x.content), nil
	case *fsDir:
		if n != "." {
			return errDict(fmt.Sprintf("cat: %s: Is a directory", n)), nil
		}
	}
	return errDict(fmt.Sprintf("cat: %s: No such file or directory", n)), nil
}

func (fs *fileSystem) find(a args) (any, error) {
	matches := []any{}
	name, all := a.str("name"), a.isNone("name")
	var walk func(d *fsDir, base string)
	walk = func(d *fsDir, base string) {
		for _, k := range d.contents.Keys() {
			p := base + "/" + k.(string)
			if all || strings.Contains(k.(string), name) {
				matches = append(matches, p)
			}
			if sub, ok := d.item(k.(string)).(*fsDir); ok {
				walk(sub, p)
			}
		}
	}
	walk(fs.cwd, strings.TrimRight(a.str("path"), "/"))
	return NewDict("matches", matches), nil
}

// file returns the named file of the cwd, or nil.
func (fs *fileSystem) file(name string) *fsFile {
	f, _ := fs.cwd.contents.Get(name)
	ff, _ := f.(*fsFile)
	return ff
}

func (fs *fileSystem) wc(a args) (any, error) {
	n, mode := a.str("file_name"), a.str("mode")
	f := fs.file(n)
	if f == nil {
		return errDict(fmt.Sprintf("wc: %s: No such file or directory", n)), nil
	}
	switch mode {
	case "l":
		return NewDict("count", int64(len(splitLines(f.content))), "type", "lines"), nil
	case "w":
		return NewDict("count", int64(len(strings.Fields(f.content))), "type", "words"), nil
	case "c":
		return NewDict("count", int64(utf8.RuneCountInString(f.content)), "type", "characters"), nil
	}
	return errDict(fmt.Sprintf("wc: invalid mode '%s'", mode)), nil
}

func (fs *fileSystem) sort(a args) (any, error) {
	n := a.str("file_name")
	f := fs.file(n)
	if f == nil {
		return errDict(fmt.Sprintf("sort: %s: No such file or directory", n)), nil
	}
	lines := splitLines(f.content)
	sortCodePoints(lines)
	return NewDict("sorted_content", strings.Join(lines, "\n")), nil
}

func (fs *fileSystem) grep(a args) (any, error) {
	n := a.str("file_name")
	f := fs.file(n)
	if f == nil {
		return errDict(fmt.Sprintf("grep: %s: No such file or directory", n)), nil
	}
	out := []any{}
	for _, l := range splitLines(f.content) {
		if strings.Contains(l, a.str("pattern")) {
			out = append(out, l)
		}
	}
	return NewDict("matching_lines", out), nil
}

func (fs *fileSystem) du(a args) (any, error) {
	var size func(v any) int64
	size = func(v any) int64 {
		switch x := v.(type) {
		case *fsFile:
			return int64(len(x.content))
		case *fsDir:
			var s int64
			for _, k := range x.contents.Keys() {
				c, _ := x.contents.Get(k)
				s += size(c)
			}
			return s
		}
		return 0
	}
	total := size(fs.cwd)
	if !a.boolean("human_readable") {
		return NewDict("disk_usage", fmt.Sprintf("%d bytes", total)), nil
	}
	f := float64(total)
	for _, unit := range []string{"B", "KB", "MB", "GB", "TB"} {
		if f < 1024 {
			return NewDict("disk_usage", fmt.Sprintf("%.2f %s", f, unit)), nil
		}
		f /= 1024
	}
	return NewDict("disk_usage", fmt.Sprintf("%.2f PB", f)), nil
}

func (fs *fileSystem) tail(a args) (any, error) {
	n := a.str("file_name")
	f := fs.file(n)
	if f == nil {
		return errDict(fmt.Sprintf("tail: %s: No such file or directory", n)), nil
	}
	lines := splitLines(f.content)
	// As the reference: lines > len(content) makes lines the length, an
	// int; any other value must slice as an int (5.0 does not).
	more, err := greaterThanInt(a["lines"], int64(len(lines)))
	if err != nil {
		return nil, err
	}
	k := len(lines)
	if !more {
		if !isInt(a["lines"]) {
			return nil, raise{errSliceIndex}
		}
		k = int(toInt(a["lines"]))
	}
	start := len(lines) - k
	switch {
	case k == 0:
		start = 0
	case k < 0: // Python's lines[-k:] with negative k drops the first |k| lines
		start = min(-k, len(lines))
	}
	return NewDict("last_lines", strings.Join(lines[start:], "\n")), nil
}

func (fs *fileSystem) diff(a args) (any, error) {
	n1, n2 := a.str("file_name1"), a.str("file_name2")
	f1, f2 := fs.file(n1), fs.file(n2)
	if f1 == nil || f2 == nil {
		return errDict(fmt.Sprintf("diff: %s or %s: No such file or directory", n1, n2)), nil
	}
	l1, l2 := splitLines(f1.content), splitLines(f2.content)
	var out []string
	for i := 0; i < len(l1) && i < len(l2); i++ {
		if l1[i] != l2[i] {
			out = append(out, "- "+l1[i]+"\n+ "+l2[i])
		}
	}
	return NewDict("diff_lines", strings.Join(out, "\n")), nil
}
