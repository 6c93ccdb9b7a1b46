package chat

import (
	"testing"
	"time"
)

func TestStrftime(t *testing.T) {
	// The expected outputs are Python's datetime.strftime on Linux.
	fri := time.Date(2024, 7, 26, 9, 5, 3, 123456000, time.Local)
	newYear := time.Date(2025, 1, 1, 0, 0, 0, 0, time.Local)
	tests := []struct {
		name   string
		t      time.Time
		format string
		want   string
	}{
		{"llama date", fri, "%d %b %Y", "26 Jul 2024"},
		{"iso date", fri, "%Y-%m-%d", "2024-07-26"},
		{"names and no padding", fri, "%A, %B %-d, %Y", "Friday, July 26, 2024"},
		{"clock", fri, "%H:%M:%S %p %I", "09:05:03 AM 09"},
		{"day numbers", fri, "%j %U %W %u %w %y %C", "208 29 30 5 5 24 20"},
		{"space padded", fri, "%e|%k|%l", "26| 9| 9"},
		{"locale forms", fri, "%c", "Fri Jul 26 09:05:03 2024"},
		{"locale date and time", fri, "%x %X", "07/26/24 09:05:03"},
		{"composites", fri, "%D %F %R %T %r", "07/26/24 2024-07-26 09:05 09:05:03 09:05:03 AM"},
		{"iso week", fri, "%G-W%V-%u %g", "2024-W30-5 24"},
		{"microseconds", fri, "%f", "123456"},
		{"naive time has no zone", fri, "[%z][%Z]", "[][]"},
		{"percent and unknown", fri, "100%% %q", "100% %q"},
		{"whitespace directives", fri, "%h %n%t.", "Jul \n\t."},
		{"new year", newYear, "%U %W %V %G %j %a %I %p", "00 00 01 2025 001 Wed 12 AM"},
		{"unpadded zeros", newYear, "%-m/%-d %-H:%-M", "1/1 0:0"},
		{"trailing percent", fri, "50%", "50%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strftime(tt.format, tt.t); got != tt.want {
				t.Errorf("strftime(%q) = %q, want %q", tt.format, got, tt.want)
			}
		})
	}
}
