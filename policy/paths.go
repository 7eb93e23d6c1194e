package policy

import (
	"path"
	"strings"
)

// Clean makes an absolute, lexically normal path. A relative path is an
// error of the caller's, reported by Resolve; Clean only normalises.
func Clean(p string) string {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p) // no allocation when p is already clean
	}
	return path.Clean("/" + p)
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
