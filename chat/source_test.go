package chat

import (
	"strings"
	"testing"
)

// TestLexing renders templates whose output depends on how the source is
// lexed: newlines, whitespace control, comments, raw blocks, string
// literals. The expected outputs are Python Jinja2's with transformers'
// environment (trim_blocks, lstrip_blocks, its tojson), xs = [1, 2, 3].
func TestLexing(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"expression then newline in a loop", "{% for m in xs %}{{ m }}\n{% endfor %}", "1\n2\n3\n"},
		{"indented end tag after expression", "{% for m in xs %}{{ m }}\n  {% endfor %}", "1\n2\n3\n"},
		{"space before newline", "{% for m in xs %}{{ m }} \n{% endfor %}", "1 \n2 \n3 \n"},
		{"crlf source", "a\r\nb\rc{% if true %}\r\nd{% endif %}\r\n", "a\nb\ncd"},
		{"one final newline dropped", "a\n\n", "a\n"},
		{"lstrip only at line start", "x  {% if true %}y{% endif %}", "x  y"},
		{"lstrip at template start", "   {% if true %}y{% endif %}", "y"},
		{"lstrip after trimmed newline", "{% if true %}\n   {% if true %}z{% endif %}\n{% endif %}", "z"},
		{"plus disables lstrip", "a\n   {%+ if true %}b{% endif %}", "a\n   b"},
		{"plus disables trim_blocks", "{% if true +%}\nb{% endif %}", "\nb"},
		{"minus strips newlines", "a  \n\n {%- if true -%}  \n\n b {%- endif %}", "ab"},
		{"expression markers", "a \n {{- 'b' -}} \n c", "abc"},
		{"expressions keep indentation", "x\n    {{ 'y' }}\n", "x\n    y"},
		{"comment lstrip and trim", "a\n  {# note #}\nb", "a\nb"},
		{"comment minus", "a \n{#- note -#}\n b", "ab"},
		{"comment plus", "a\n{# note +#}\nb", "a\n\nb"},
		{"raw block", "{% raw %}\n{{ x }} {% if %}{% endraw %}\nafter", "\n{{ x }} {% if %}after"},
		{"raw block with markers", "a  {%- raw -%}  {{ y }}  {%- endraw -%}  b", "a{{ y }}b"},
		{"unicode whitespace stripped by minus", "a\u00a0\u2003 {{- 'b' }}", "ab"},
		{"unicode whitespace lstripped", "a\n\u2003\t{% if true %}b{% endif %}", "a\nb"},
		{"string escapes", "{{ '\\u00e9\\x41\\r\\t\\n\\\\\\'\\\"\\101\\q' }}", "\u00e9A\r\t\n\\'\"A\\q"},
		{"double quoted", "{{ \"it's \\\"q\\\"\" }}", "it's \"q\""},
		{"non-ASCII text and after a backslash", "{{ 'é中😀 \\é \\中' }}", "é中😀 \\xe9 \\u4e2d"},
		{"newline inside a literal", "{{ 'a\nb' }}", "a\nb"},
		{"closing braces in a dict literal", "{{ {'a': {'b': 1}} | tojson }}", "{\"a\": {\"b\": 1}}"},
		{"percent brace in a string", "{% set s = '%}' %}{{ s }}|{{ '}}' }}", "%}|}}"},
		{"tojson in a string is text", "{{ '| tojson' }}", "| tojson"},
		{"tojson chained", "{{ xs | tojson | length }}", "9"},
		{"block in one line", "{% for m in xs %}<{{ m }}>{% endfor %}\n", "<1><2><3>"},
		{"nested blocks indented", "<ul>\n  {% for m in xs %}\n    <li>{{ m }}</li>\n  {% endfor %}\n</ul>\n", "<ul>\n    <li>1</li>\n    <li>2</li>\n    <li>3</li>\n</ul>"},
		{"set block", "{% set b %}\n  inner {{ 1 }}\n{% endset %}[{{ b }}]", "[  inner 1\n]"},
		{"macro", "{% macro f(x) %}\n  <{{ x }}>\n{% endmacro %}{{ f(1) }}{{ f(2) }}", "  <1>\n  <2>\n"},
		{"if elif else", "{% if false %}\na\n{% elif true %}\nb\n{% else %}\nc\n{% endif %}\n", "b\n"},
		{"trim_blocks at the end", "{% if true %}{% endif %}\n\n", ""},
		{"minus at the end", "a{% if true -%}\n\n{% endif %}\n\n", "a"},
		{"comment at the end", "a{# c #}\n\n\n", "a\n"},
		{"expression at the end", "{{ 1 }}\n", "1"},
		{"minus expression at the end", "{{ 1 -}}\n\n", "1"},
		{"break and continue", "{% for m in xs %}\n{% if m == 2 %}{% continue %}{% endif %}\n{{ m }}\n{% endfor %}", "1\n3\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := New(tt.src, SpecialTokens{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := tmpl.Render(hello, Options{Vars: map[string]any{"xs": []int{1, 2, 3}}})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCanonicalize(t *testing.T) {
	pr := func(expr string) string { return "{{(" + expr + ") | " + printFilter + " }}" }
	tests := []struct {
		name, in, want string
	}{
		{"text becomes a literal", "a'b\\c", `{{ 'a\'b\\c' }}`},
		{"markers go", "{%- if x -%}{{- y -}}{%+ endif +%}", "{% if x %}" + pr(" y ") + "{% endif %}"},
		{"tojson renamed", "{{ x|tojson(indent=2) }}{{ y | tojson }}", pr(" x|"+tojsonFilter+"(indent=2) ") + pr(" y | "+tojsonFilter+" ")},
		{"other names kept", "{{ x | tojsonish }}{{ x.tojson }}{% filter tojson %}{% endfilter %}", pr(" x | tojsonish ") + pr(" x.tojson ") + "{% filter tojson %}{% endfilter %}"},
		{"literals re-encoded", `{{ "a\"b" ~ '\x41' }}`, pr(` 'a"b' ~ 'A' `)},
		{"closing braces kept apart", "{{ {'a': {'b': 1}} }}", pr(" {'a': {'b': 1} } ")},
		{"removed newlines kept in the next tag", "a\n{%- if x %}\nb{% endif %}", "{{ 'a' }}{%\n if x %}{{\n 'b' }}{% endif %}"},
		{"comments go", "{# a\nb #}c", "{{\n 'c' }}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := canonicalize(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCanonicalizeErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"unclosed expression", "a\n{{ x", "line 2: unclosed tag"},
		{"unclosed statement", "{% if x", "line 1: unclosed tag"},
		{"unclosed comment", "{# x", "unclosed comment"},
		{"raw without endraw", "{% raw %}x", "without {% endraw %}"},
		{"unterminated string", "{{ 'abc }}", "unterminated string"},
		{"bad escape", `{{ '\xZZ' }}`, `bad \x escape`},
		{"named escape", `{{ '\N{BULLET}' }}`, `\N{...}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := canonicalize(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
