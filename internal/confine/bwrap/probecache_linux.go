package bwrap

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// A probe of bwrap runs it twice (--version, then a throwaway sandbox with
// every option this backend uses): about as long as the command itself.
// With Options.ProbeCache set, a successful probe leaves a marker there,
// and later providers skip both runs while the marker's key still holds.
// The key is everything the result depends on: the boot (kernel and its
// settings as booted), the user, the bwrap binary's identity (device,
// inode, size, change and modification times) and the exact trial argv.
//
// The marker can only make ringfence skip a probe, never a check: if bwrap
// fails after all (user namespaces turned off since, say), the run fails
// closed with bwrap's own diagnostic (stage "bwrap"), never unconfined.
// What is lost is auto's fallback to a weaker backend for that run, as
// with the linux backend's per-boot probe. A forged marker can do no more.

// markerPath names the marker for bwrap at path, or "" when no key can be
// formed (then the full probe runs).
func markerPath(dir, path string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return ""
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return ""
	}
	key := fmt.Sprintf("%s\x00%d\x00%s\x00%d:%d:%d:%d.%d:%d.%d\x00%s", strings.TrimSpace(string(boot)), os.Getuid(), path,
		st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec, strings.Join(trialArgs(path), "\x00"))
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(dir, "bwrap-ok-"+hex.EncodeToString(sum[:12]))
}

// versionShape is what a bwrap version looks like; a marker saying
// anything else is ignored.
// Compiled on first use: the bwrap backend is linked into every ringfence
// process, the cache is read by few.
var versionShape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Za-z.+~-]{1,32}$`) })

// cachedVersion is the version a valid marker records, or "".
func cachedVersion(marker string) string {
	if marker == "" {
		return ""
	}
	b, err := os.ReadFile(marker)
	if err != nil || !versionShape().Match(b) {
		return ""
	}
	return string(b)
}

// remember leaves the marker (best effort: without it the next provider
// probes again). Written to a temporary name and renamed, so a reader
// never sees half of it.
func remember(marker, version string) {
	if marker == "" || !versionShape().MatchString(version) {
		return
	}
	if os.MkdirAll(filepath.Dir(marker), 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(marker), ".bwrap-ok-*")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(version)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), marker) != nil {
		_ = os.Remove(tmp.Name())
	}
}
