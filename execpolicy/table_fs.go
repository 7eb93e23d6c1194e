package execpolicy

import "strings"

const broadReason = "reaches the root, a system directory, the home directory or a parent of the working directory"

func registerFs() {
	register(rm, "rm", "grm")
	register(chmod, "chmod")
	register(chownLike, "chown", "chgrp")
	register(dd, "dd")
	register(copyLike(true), "mv", "gmv")
	register(copyLike(false), "cp", "gcp", "install", "ln")
	register(shred, "shred")
	register(fixed(Critical, "rewrites a disk's partitions or file system"), strings.Fields(`
		mkfs mkfs.ext2 mkfs.ext3 mkfs.ext4 mkfs.xfs mkfs.btrfs mkfs.vfat mkfs.fat mkfs.msdos mkfs.ntfs
		mkfs.exfat mkfs.f2fs mke2fs mkswap fdisk sfdisk gdisk sgdisk cfdisk parted wipefs blkdiscard
		cryptsetup diskutil`)...)
}

// rm deletes (modify); recursively deleting a broad target, or anything
// with --no-preserve-root, is critical; recursively deleting a directory
// whose name starts with a run-time value ("$DIR"/*) is unknown, because an
// empty value turns it into the root.
func rm(_ *state, argv []string, _ int) (verdict, []Classification) {
	args := argv[1:]
	if hasAny(args, "--no-preserve-root") {
		return v(Critical, "deletes with the root's protection turned off"), nil
	}
	recursive := hasAny(args, "-r", "-R", "--recursive")
	for _, t := range operands(args, nil) {
		if broadTarget(t) && (recursive || strings.HasSuffix(t, "*")) {
			return v(Critical, "deletes what "+broadReason), nil
		}
		if _, home := homeRef(t); recursive && !home && strings.HasPrefix(t, dynMark) {
			return v(Unknown, "deletes a directory named at run time, which may be empty or the root"), nil
		}
	}
	return v(Modify, "deletes files"), nil
}

// chmod changes modes (modify); a setuid or setgid bit is privilege; a
// recursive change of a broad target is critical.
func chmod(_ *state, argv []string, _ int) (verdict, []Classification) {
	args := argv[1:]
	ops := operands(args, set("--reference"))
	if len(ops) > 0 && setuidMode(ops[0]) {
		return v(Privilege, "sets a setuid or setgid bit"), nil
	}
	if hasAny(args, "-R", "--recursive") && len(ops) > 1 && anyBroad(ops[1:]) {
		return v(Critical, "changes modes of what "+broadReason), nil
	}
	return v(Modify, "changes file modes"), nil
}

// setuidMode reports whether a chmod mode adds a setuid or setgid bit:
// octal 4xxx, 2xxx, 6xxx, or a symbolic mode granting s.
func setuidMode(m string) bool {
	if len(m) == 4 && strings.Trim(m, "01234567") == "" {
		return m[0] == '2' || m[0] == '4' || m[0] == '6' || m[0] == '3' || m[0] == '5' || m[0] == '7'
	}
	for _, clause := range strings.Split(m, ",") {
		if i := strings.IndexAny(clause, "+="); i >= 0 && strings.Contains(clause[i:], "s") {
			return true
		}
	}
	return false
}

func chownLike(_ *state, argv []string, _ int) (verdict, []Classification) {
	args := argv[1:]
	ops := operands(args, set("--reference", "--from"))
	if hasAny(args, "-R", "--recursive") && len(ops) > 1 && anyBroad(ops[1:]) {
		return v(Critical, "changes ownership of what "+broadReason), nil
	}
	return v(Modify, "changes file ownership"), nil
}

// dd copies blocks: writing a raw disk is critical, reading one is
// privilege (it bypasses every file permission).
func dd(_ *state, argv []string, _ int) (verdict, []Classification) {
	out := v(Modify, "copies blocks of data")
	for _, a := range argv[1:] {
		switch {
		case strings.HasPrefix(a, "if="):
			if rawDevice(a[3:]) {
				out = maxVerdict(out, v(Privilege, "reads a raw disk"))
			} else if credentialPath(a[3:]) {
				out = maxVerdict(out, v(Credential, "reads a secret: "+progLabel(a[3:])))
			}
		case strings.HasPrefix(a, "of="):
			if c, reason, ok := writeTarget(a[3:]); ok {
				out = maxVerdict(out, v(c, reason))
			}
		}
	}
	return out, nil
}

func maxVerdict(a, b verdict) verdict {
	if b.cap > a.cap {
		return b
	}
	return a
}

// copyLike is cp, mv, install, ln: modify; the destination is judged as a
// write; moving a broad source is critical.
func copyLike(moves bool) handler {
	return func(_ *state, argv []string, _ int) (verdict, []Classification) {
		args := argv[1:]
		ops := operands(args, set("-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"))
		out := v(Modify, writesReason)
		if len(ops) == 0 {
			return out, nil
		}
		if moves && anyBroad(ops[:len(ops)-1]) {
			return v(Critical, "moves what "+broadReason), nil
		}
		dests := []string{ops[len(ops)-1]}
		for i, a := range args {
			if (a == "-t" || a == "--target-directory") && i+1 < len(args) {
				dests = append(dests, args[i+1])
			}
		}
		for _, d := range dests {
			if c, reason, ok := writeTarget(d); ok && c > Modify {
				out = maxVerdict(out, v(c, reason))
			}
		}
		return out, nil
	}
}

func shred(_ *state, argv []string, _ int) (verdict, []Classification) {
	for _, t := range operands(argv[1:], set("-n", "--iterations", "-s", "--size", "--random-source")) {
		if rawDevice(t) {
			return v(Critical, "overwrites a raw disk"), nil
		}
	}
	return v(Modify, "overwrites and deletes files"), nil
}
