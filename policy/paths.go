package policy

import (
	"path"
	"strings"
)

// Clean makes an absolute, lexically normal path. A relative path is an
// error of the caller's, reported by Resolve; Clean only normalises.
func Clean(p string) string {
	if isClean(p) {
		// Resolved policies and plans hold clean paths, and Contains
		// runs on them in every loop of the view plan: path.Clean's
		// scan was 5-7% of a run's CPU (issue 16). The answer is the
		// same (FuzzCleanFastPath).
		return p
	}
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	return path.Clean("/" + p)
}

// isClean reports whether p is an absolute path path.Clean leaves as it
// is: "/" or "/" followed by segments that are not empty, "." or "..".
func isClean(p string) bool {
	n := len(p)
	if n == 0 || p[0] != '/' {
		return false
	}
	if n == 1 {
		return true
	}
	if p[n-1] == '/' {
		return false
	}
	for i := 1; i < n; i++ {
		if p[i-1] != '/' {
			continue
		}
		// p[i] starts a segment: not empty, not "." or "..".
		switch {
		case p[i] == '/':
			return false
		case p[i] != '.':
		case i+1 == n || p[i+1] == '/':
			return false
		case p[i+1] == '.' && (i+2 == n || p[i+2] == '/'):
			return false
		}
	}
	return true
}

// Contains reports whether candidate is root or lies beneath it, comparing
// whole segments: /repo-secrets is never inside /repo.
func Contains(root, candidate string) bool {
	root, candidate = Clean(root), Clean(candidate)
	if root == "/" || root == candidate {
		return true
	}
	return len(candidate) > len(root) && candidate[len(root)] == '/' && strings.HasPrefix(candidate, root)
}

// Depth is the number of segments below "/": deeper is more specific.
func Depth(p string) int {
	p = Clean(p)
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}
