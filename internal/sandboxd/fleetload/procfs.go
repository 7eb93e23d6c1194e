package fleetload

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
)

// procStat is what the load run needs of /proc/PID/stat.
type procStat struct {
	State     byte
	PPID      int
	StartTime uint64 // clock ticks since boot: with the pid, names one process
}

// parseStat parses /proc/PID/stat. The command name (field 2) is in
// parentheses and may hold spaces and ')' itself, so the fields are read
// after the last ')'.
func parseStat(b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("stat: no ')' after the command name")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state), f[1] field 4 (ppid), f[19] field 22 (starttime).
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, errors.New("stat: too few fields")
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil || ppid < 0 {
		return procStat{}, errors.New("stat: bad ppid")
	}
	st, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return procStat{}, errors.New("stat: bad starttime")
	}
	return procStat{State: f[0][0], PPID: ppid, StartTime: st}, nil
}

// mountPoints lists the mount points (field 5) of a mountinfo file,
// unescaped (the kernel writes space, tab, newline and backslash as
// \ooo). Malformed lines are an error: a check that skipped them could
// miss a leak.
func mountPoints(mountinfo []byte) ([]string, error) {
	var out []string
	for _, line := range strings.Split(string(mountinfo), "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 10 {
			return nil, errors.New("mountinfo: short line: " + line)
		}
		mp, err := unescapeOctal(f[4])
		if err != nil {
			return nil, err
		}
		out = append(out, mp)
	}
	return out, nil
}

func unescapeOctal(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+4 > len(s) {
			return "", errors.New("mountinfo: truncated escape in " + s)
		}
		n, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
		if err != nil {
			return "", errors.New("mountinfo: bad escape in " + s)
		}
		b.WriteByte(byte(n))
		i += 3
	}
	return b.String(), nil
}

// under reports whether p is dir or beneath it (both clean and absolute).
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
