package confine

import (
	"fmt"
	"strings"

	"github.com/ringfence/ringfence/policy"
)

// reservedMounts are where a workspace may never be shown: the view's own
// mounts and the system directories every program needs.
var reservedMounts = []string{"/proc", "/dev", "/sys", "/tmp", "/usr", "/bin", "/sbin",
	"/lib", "/lib32", "/lib64", "/libx32", "/etc", "/run", "/var", "/boot"}

// CheckMountPath refuses a mount path the view cannot honour: not
// absolute and clean, the root of everything, over a system directory, or
// holding a layer from outside the workspace (its content would be
// shadowed by the workspace).
func CheckMountPath(p *policy.Policy, mount string) error {
	if mount == "" || mount == p.Root {
		return nil
	}
	bad := func(why string) error {
		return fmt.Errorf("%w: mount path %q %s", policy.ErrPolicy, mount, why)
	}
	if !strings.HasPrefix(mount, "/") || policy.Clean(mount) != mount || mount == "/" {
		return bad("must be an absolute, clean path other than /")
	}
	if policy.Contains(p.Root, mount) || policy.Contains(mount, p.Root) {
		return bad("overlaps the workspace's real path")
	}
	for _, r := range reservedMounts {
		if policy.Contains(r, mount) || policy.Contains(mount, r) {
			return bad("would cover the system directory " + r)
		}
	}
	for _, l := range p.Layers {
		if policy.Contains(mount, l.Path) && !policy.Contains(p.Root, l.Path) {
			return bad("holds " + l.Path + ", which is outside the workspace")
		}
	}
	return nil
}
