package chat

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// strftime formats t as Python's datetime.strftime does on Linux (glibc)
// for a naive datetime, which is what transformers' strftime_now returns
// (datetime.now() has no time zone, so %z and %Z are empty). Supported:
// %a %A %b %B %h %c %C %d %D %e %F %H %I %j %k %l %m %M %n %p %r %R %S %t
// %T %u %w %x %X %y %Y %G %g %V %U %W %f %s %z %Z %%, and glibc's '-'
// flag (%-d: no padding). Any other directive is written as is, as glibc
// does.
func strftime(format string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		start := i
		i++
		noPad := false
		if format[i] == '-' && i+1 < len(format) {
			noPad = true
			i++
		}
		if num, ok := numDirectives[format[i]]; ok {
			n, width, pad := num(t)
			writeNum(&b, n, width, pad, noPad)
		} else if f, ok := compositeDirectives[format[i]]; ok {
			b.WriteString(strftime(f, t))
		} else if text, ok := textDirectives[format[i]]; ok {
			b.WriteString(text(t))
		} else {
			b.WriteString(format[start : i+1])
		}
	}
	return b.String()
}

// writeNum writes n padded with pad to width digits, unless noPad.
func writeNum(b *strings.Builder, n, width int, pad byte, noPad bool) {
	s := strconv.Itoa(n)
	if !noPad {
		for len(s) < width {
			s = string(pad) + s
		}
	}
	b.WriteString(s)
}

// numDirectives are the directives that write a number: its value, its
// width and the padding that fills it ('-' drops the padding).
var numDirectives = map[byte]func(t time.Time) (n, width int, pad byte){
	'C': func(t time.Time) (int, int, byte) { return t.Year() / 100, 2, '0' },
	'd': func(t time.Time) (int, int, byte) { return t.Day(), 2, '0' },
	'e': func(t time.Time) (int, int, byte) { return t.Day(), 2, ' ' },
	'H': func(t time.Time) (int, int, byte) { return t.Hour(), 2, '0' },
	'I': func(t time.Time) (int, int, byte) { return hour12(t), 2, '0' },
	'j': func(t time.Time) (int, int, byte) { return t.YearDay(), 3, '0' },
	'k': func(t time.Time) (int, int, byte) { return t.Hour(), 2, ' ' },
	'l': func(t time.Time) (int, int, byte) { return hour12(t), 2, ' ' },
	'm': func(t time.Time) (int, int, byte) { return int(t.Month()), 2, '0' },
	'M': func(t time.Time) (int, int, byte) { return t.Minute(), 2, '0' },
	'S': func(t time.Time) (int, int, byte) { return t.Second(), 2, '0' },
	'u': func(t time.Time) (int, int, byte) { return (int(t.Weekday())+6)%7 + 1, 1, '0' },
	'w': func(t time.Time) (int, int, byte) { return int(t.Weekday()), 1, '0' },
	'y': func(t time.Time) (int, int, byte) { return t.Year() % 100, 2, '0' },
	'Y': func(t time.Time) (int, int, byte) { return t.Year(), 1, '0' },
	'G': func(t time.Time) (int, int, byte) { y, _ := t.ISOWeek(); return y, 1, '0' },
	'g': func(t time.Time) (int, int, byte) { y, _ := t.ISOWeek(); return y % 100, 2, '0' },
	'V': func(t time.Time) (int, int, byte) { _, w := t.ISOWeek(); return w, 2, '0' },
	'U': func(t time.Time) (int, int, byte) { return (t.YearDay() + 6 - int(t.Weekday())) / 7, 2, '0' },
	'W': func(t time.Time) (int, int, byte) { return (t.YearDay() + 6 - (int(t.Weekday())+6)%7) / 7, 2, '0' },
}

// compositeDirectives stand for a format of other directives.
var compositeDirectives = map[byte]string{
	'c': "%a %b %e %H:%M:%S %Y",
	'D': "%m/%d/%y", 'x': "%m/%d/%y",
	'F': "%Y-%m-%d",
	'r': "%I:%M:%S %p",
	'R': "%H:%M",
	'T': "%H:%M:%S", 'X': "%H:%M:%S",
}

// textDirectives are the directives that write names and fixed text (%z
// and %Z are empty for a naive time).
var textDirectives = map[byte]func(t time.Time) string{
	'a': func(t time.Time) string { return t.Weekday().String()[:3] },
	'A': func(t time.Time) string { return t.Weekday().String() },
	'b': func(t time.Time) string { return t.Month().String()[:3] },
	'h': func(t time.Time) string { return t.Month().String()[:3] },
	'B': func(t time.Time) string { return t.Month().String() },
	'p': func(t time.Time) string { return map[bool]string{true: "AM", false: "PM"}[t.Hour() < 12] },
	'f': func(t time.Time) string { return fmt.Sprintf("%06d", t.Nanosecond()/1000) },
	's': func(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) },
	'n': func(time.Time) string { return "\n" },
	't': func(time.Time) string { return "\t" },
	'%': func(time.Time) string { return "%" },
	'z': func(time.Time) string { return "" },
	'Z': func(time.Time) string { return "" },
}

// hour12 is the hour on a 12-hour clock (12, 1, ..., 11).
func hour12(t time.Time) int {
	if h := t.Hour() % 12; h != 0 {
		return h
	}
	return 12
}
