package bfcl

import (
	"fmt"
	"sort"
	"strings"
)

// recreate puts a copy of item named name at the end of dir's listing. A
// directory keeps its children, whose parent links are left as they were.
func recreate(dir *fsDir, name string, item any) {
	switch x := item.(type) {
	case *fsFile:
		dir.contents.Set(name, &fsFile{name: name, content: x.content})
	case *fsDir:
		dir.contents.Set(name, &fsDir{name: name, parent: dir, contents: x.contents})
	}
}

func (fs *fileSystem) mv(a args) (any, error) {
	src, dst := a.str("source"), a.str("destination")
	if !fs.cwd.contents.Has(src) {
		return errDict(fmt.Sprintf("mv: cannot move '%s': No such file or directory", src)), nil
	}
	item := fs.cwd.item(src)
	if strings.Contains(dst, "/") {
		return errDict("mv: no path allowed in destination. Only file name and folder name is supported for this operation."), nil
	}
	switch target := fs.cwd.item(dst).(type) {
	case nil:
		fs.cwd.contents.Delete(src)
		recreate(fs.cwd, dst, item)
		return NewDict("result", fmt.Sprintf("'%s' moved to '%s'", src, dst)), nil
	case *fsDir:
		if target.contents.Has(src) {
			return errDict(fmt.Sprintf("mv: cannot move '%s' to '%s/%s': File exists", src, dst, src)), nil
		}
		recreate(target, src, item)
		fs.cwd.contents.Delete(src)
		return NewDict("result", fmt.Sprintf("'%s' moved to '%s/%s'", src, dst, src)), nil
	}
	return errDict(fmt.Sprintf("mv: cannot move '%s' to '%s': Not a directory", src, dst)), nil
}

func (fs *fileSystem) rm(a args) (any, error) {
	n := a.str("file_name")
	if !fs.cwd.contents.Has(n) {
		return errDict(fmt.Sprintf("rm: cannot remove '%s': No such file or directory", n)), nil
	}
	fs.cwd.contents.Delete(n)
	return NewDict("result", fmt.Sprintf("'%s' removed", n)), nil
}

func (fs *fileSystem) rmdir(a args) (any, error) {
	n := a.str("dir_name")
	v, ok := fs.cwd.contents.Get(n)
	if !ok {
		return errDict(fmt.Sprintf("rmdir: cannot remove '%s': No such file or directory", n)), nil
	}
	d, ok := v.(*fsDir)
	if !ok {
		return errDict(fmt.Sprintf("rmdir: cannot remove '%s': Not a directory", n)), nil
	}
	if d.contents.Len() > 0 {
		return errDict(fmt.Sprintf("rmdir: failed to remove '%s': Directory not empty", n)), nil
	}
	fs.cwd.contents.Delete(n)
	return NewDict("result", fmt.Sprintf("'%s' removed", n)), nil
}

// copyInto adds a copy of item named name to dir; a directory copy gets a
// new listing whose children are shared with the original.
func copyInto(dir *fsDir, name string, item any) error {
	switch x := item.(type) {
	case *fsFile:
		return dir.addFile(name, x.content)
	case *fsDir:
		nd, err := dir.addDir(name)
		if err != nil {
			return err
		}
		for _, k := range x.contents.Keys() {
			v, _ := x.contents.Get(k)
			nd.contents.Set(k, v)
		}
	}
	return nil
}

func (fs *fileSystem) cp(a args) (any, error) {
	src, dst := a.str("source"), a.str("destination")
	item := fs.cwd.item(src)
	if item == nil {
		return errDict(fmt.Sprintf("cp: cannot copy '%s': No such file or directory", src)), nil
	}
	if strings.Contains(dst, "/") {
		return errDict("cp: don't allow path in destination. Only file name and folder name is supported for this operation."), nil
	}
	switch target := fs.cwd.item(dst).(type) {
	case nil:
		if err := copyInto(fs.cwd, dst, item); err != nil {
			return nil, err
		}
		return NewDict("result", fmt.Sprintf("'%s' copied to '%s'", src, dst)), nil
	case *fsDir:
		if err := copyInto(target, src, item); err != nil {
			return nil, err
		}
		return NewDict("result", fmt.Sprintf("'%s' copied to '%s/%s'", src, dst, src)), nil
	}
	return errDict(fmt.Sprintf("cp: cannot copy '%s' to '%s': Not a directory", src, dst)), nil
}

// splitLines splits as Python's str.splitlines: a trailing line break adds
// no empty line.
func splitLines(s string) []string {
	var out []string
	start := 0
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, string(rs[start:i]))
			if rs[i] == '\r' && i+1 < len(rs) && rs[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

// sortCodePoints sorts as Python sorts str: by code point (which UTF-8
// byte order preserves).
func sortCodePoints(l []string) { sort.Strings(l) }
