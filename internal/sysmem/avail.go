package sysmem

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Limit files of the cgroup the process runs in: v2, then v1.
var cgroupLimitFiles = []string{
	"/sys/fs/cgroup/memory.max",
	"/sys/fs/cgroup/memory/memory.limit_in_bytes",
}

// Available is the memory this process may use, in bytes, and where the
// figure comes from: the cgroup's limit when one is set (v2 memory.max,
// else v1 memory.limit_in_bytes), else MemAvailable of /proc/meminfo. It
// is an error when neither can be read (not Linux, for example).
func Available() (bytes int64, source string, err error) {
	for _, f := range cgroupLimitFiles {
		if n, ok := readCgroupLimit(f); ok {
			return n, "cgroup limit " + f, nil
		}
	}
	n, err := memAvailable("/proc/meminfo")
	if err != nil {
		return 0, "", fmt.Errorf("sysmem: no cgroup limit and no MemAvailable: %w", err)
	}
	return n, "MemAvailable of /proc/meminfo", nil
}

// readCgroupLimit reads a cgroup memory limit; "max" (v2) or a value of
// 2^62 or more (v1's unlimited) is no limit.
func readCgroupLimit(path string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(data))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= 1<<62 {
		return 0, false
	}
	return n, true
}

// memAvailable reads the MemAvailable line (kB) of a meminfo file.
func memAvailable(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s: MemAvailable %q: %w", path, f[1], err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("%s has no MemAvailable line", path)
}
