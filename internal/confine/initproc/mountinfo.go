package initproc

import (
	"path"
	"strings"
)

// SubmountsUnder returns the mount points strictly beneath dir listed in
// mountinfo (the text of /proc/self/mountinfo), outermost only (a mount
// beneath another listed one travels with it when cloned recursively),
// in the order they appear. Mount points are unescaped (\040 is a space).
func SubmountsUnder(mountinfo, dir string) []string {
	dir = path.Clean(dir)
	var all []string
	for _, line := range strings.Split(mountinfo, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		mp := unescapeMount(f[4])
		if !strings.HasPrefix(mp, "/") || path.Clean(mp) != mp {
			continue
		}
		if mp != dir && (dir == "/" || strings.HasPrefix(mp, dir+"/")) {
			all = append(all, mp)
		}
	}
	var out []string
	for _, mp := range all {
		outer := true
		for _, o := range all {
			if o != mp && strings.HasPrefix(mp, o+"/") {
				outer = false
				break
			}
		}
		if outer && !contains(out, mp) {
			out = append(out, mp)
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// unescapeMount undoes the kernel's octal escapes in mountinfo fields
// (space, tab, newline and backslash are written as \ooo).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
