package main

import (
	"slices"
	"testing"
)

func TestParseStreams(t *testing.T) {
	cases := []struct {
		in   string
		want []int
		ok   bool
	}{
		{"1,32", []int{1, 32}, true},
		{" 4 ", []int{4}, true},
		{"1,,2", nil, false},
		{"0,8", nil, false},
		{"x", nil, false},
	}
	for i, c := range cases {
		got, err := parseStreams(c.in)
		if (err == nil) != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("case %d: parseStreams(%q) = %v, %v", i, c.in, got, err)
		}
	}
}
