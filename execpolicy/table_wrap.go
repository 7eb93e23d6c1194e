package execpolicy

import (
	"strings"
	"sync"
)

// Wrappers run another command. Each is read through: the command it runs is
// classified as a part, and the wrapper itself is reported only when it adds
// something (sudo adds privilege; timeout adds nothing).

func registerWrap() {
	// wrapper(options taking a value, number of leading operands that are not the command)
	register(wrapper(set("-s", "--signal", "-k", "--kill-after"), 1), "timeout", "gtimeout")
	register(wrapper(set("-n", "--adjustment"), 0), "nice")
	register(wrapper(nil, 0), "nohup", "setsid", "chronic", "caffeinate", "xvfb-run", "unbuffer", "builtin")
	register(wrapper(set("-f", "--format", "-o", "--output"), 0), "time", "gtime")
	register(wrapper(set("-i", "-o", "-e", "--input", "--output", "--error"), 0), "stdbuf")
	register(wrapper(set("-c", "--class", "-n", "--classdata", "-p", "--pid"), 0), "ionice")
	register(wrapper(set("-c", "--cpu-list"), 1), "taskset")
	register(wrapper(set("-w", "--timeout", "-E", "--conflict-exit-code"), 1), "flock")
	register(wrapper(set("-o", "-e", "-p", "-s", "-u", "-E", "-b", "-a", "-P", "-O", "-S"), 0), "strace", "ltrace")
	register(wrapper(nil, 0), "valgrind", "proxychains", "proxychains4", "torsocks")
	register(command, "command")
	register(execWrap, "exec")
	register(env, "env")
	register(xargs, "xargs", "gxargs")
	register(find, "find", "gfind")
	register(watch, "watch")
	register(shell, "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "rbash")
	register(busybox, "busybox", "toybox")
	register(elevate("sudo", set("-u", "--user", "-g", "--group", "-p", "--prompt", "-C", "--close-from",
		"-D", "--chdir", "-h", "--host", "-r", "--role", "-t", "--type", "-T", "--command-timeout", "-U", "--other-user", "-R", "--chroot")), "sudo")
	register(elevate("doas", set("-u", "-C")), "doas")
	register(elevate("pkexec", set("--user")), "pkexec")
	register(elevateShell("su"), "su")
	register(elevateShell("runuser"), "runuser")
	register(elevateAfter(1, set("--userspec", "--groups")), "chroot")
	register(elevateAfter(0, set("-t", "--target", "-S", "--setuid", "-G", "--setgid", "-w", "--wd", "-r", "--root")), "nsenter")
	register(elevateAfter(0, set("--map-user", "--map-group", "--setgroups", "-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd")), "unshare", "firejail", "bwrap", "capsh")
	register(systemdRun, "systemd-run")
}

// wrapper reads through a program that runs the rest of its argv, after
// its options and lead leading operands (timeout's duration).
func wrapper(withArg map[string]bool, lead int) handler {
	return func(s *state, argv []string, depth int) (verdict, []Classification) {
		rest := skipOpts(argv[1:], withArg)
		if len(rest) > lead {
			return verdict{cap: Observe, reason: "runs another command", quiet: true}, s.run(rest[lead:], depth)
		}
		return v(Observe, "prints information or does nothing"), nil
	}
}

// command -v/-V look a name up; command [-p] cmd runs cmd bypassing
// functions.
func command(s *state, argv []string, depth int) (verdict, []Classification) {
	if hasAny(argv[1:], "-v", "-V") {
		return v(Observe, "looks up a command"), nil
	}
	return wrapper(nil, 0)(s, argv, depth)
}

// exec replaces the shell; with only redirections it changes the shell's
// descriptors (the redirections are classified on their own).
func execWrap(s *state, argv []string, depth int) (verdict, []Classification) {
	return wrapper(set("-a"), 0)(s, argv, depth)
}

// env sets variables and runs a command; env -S splits a string into argv
// the way a shell would, so it is read as a script.
func env(s *state, argv []string, depth int) (verdict, []Classification) {
	args := argv[1:]
	var parts []Classification
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-S" || a == "--split-string":
			if i+1 < len(args) {
				parts = append(parts, s.script(strings.Join(args[i+1:], " "), depth+1))
			}
			return verdict{cap: Observe, quiet: true}, parts
		case strings.HasPrefix(a, "--split-string=") || strings.HasPrefix(a, "-S") && len(a) > 2:
			_, val, _ := strings.Cut(a, "=")
			if val == "" {
				val = a[2:]
			}
			parts = append(parts, s.script(val+" "+strings.Join(args[i+1:], " "), depth+1))
			return verdict{cap: Observe, quiet: true}, parts
		case a == "-u" || a == "--unset" || a == "-C" || a == "--chdir":
			i++
		case a == "--":
			return envRun(s, args[i+1:], parts, depth)
		case strings.HasPrefix(a, "-") && len(a) > 1:
		default:
			return envRun(s, args[i:], parts, depth)
		}
	}
	return v(Observe, "prints the environment"), parts
}

// envRun handles env's NAME=value words and the command after them.
func envRun(s *state, rest []string, parts []Classification, depth int) (verdict, []Classification) {
	for len(rest) > 0 && strings.Contains(rest[0], "=") && !strings.HasPrefix(rest[0], "=") {
		name, value, _ := strings.Cut(rest[0], "=")
		if hijackVar(name, value) {
			parts = append(parts, s.leaf(Unknown, name, "sets "+name+", which changes what programs run"))
		}
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return v(Observe, "prints the environment"), parts
	}
	return verdict{cap: Observe, quiet: true}, append(s.run(rest, depth), parts...)
}

var xargsArg = sync.OnceValue(func() map[string]bool {
	return set("-a", "--arg-file", "-d", "--delimiter", "-E", "-e", "-I", "-L", "-l", "-n",
		"--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var")
})

// xargs runs a command with words from its input appended (or put where
// -I's placeholder is). The appended words are run-time values, so
// "xargs rm -rf" deletes directories named at run time.
func xargs(s *state, argv []string, depth int) (verdict, []Classification) {
	rest := skipOpts(argv[1:], xargsArg())
	opts := argv[1 : len(argv)-len(rest)]
	if len(rest) == 0 {
		rest = []string{"echo"}
	}
	const input = dynMark + "$(stdin)"
	if ph, ok := placeholder(opts); ok {
		inner := make([]string, len(rest))
		for i, w := range rest {
			inner[i] = strings.ReplaceAll(w, ph, input)
		}
		rest = inner
	} else {
		rest = append(append([]string{}, rest...), input)
	}
	return verdict{cap: Observe, quiet: true}, s.run(rest, depth)
}

// placeholder returns the string xargs replaces with each input line
// (-I R, -IR, -i, -iR, --replace[=R]), if one is set.
func placeholder(opts []string) (string, bool) {
	for i, o := range opts {
		switch {
		case o == "-I" && i+1 < len(opts):
			return opts[i+1], opts[i+1] != ""
		case strings.HasPrefix(o, "-I") && len(o) > 2:
			return o[2:], true
		case o == "-i" || o == "--replace":
			return "{}", true
		case strings.HasPrefix(o, "-i"):
			return o[2:], true
		case strings.HasPrefix(o, "--replace="):
			return o[len("--replace="):], len(o) > len("--replace=")
		}
	}
	return "", false
}

// watch runs its arguments joined by spaces through sh -c (or as argv with
// -x).
func watch(s *state, argv []string, depth int) (verdict, []Classification) {
	rest := skipOpts(argv[1:], set("-n", "--interval", "-d", "-q", "--equexit", "-g"))
	if len(rest) == 0 {
		return v(Observe, "prints information"), nil
	}
	if hasAny(argv[1:], "-x", "--exec") {
		return verdict{cap: Observe, quiet: true}, s.run(rest, depth)
	}
	return verdict{cap: Observe, quiet: true}, []Classification{s.script(strings.Join(rest, " "), depth+1)}
}

// busybox and toybox run the applet named by their first operand.
func busybox(s *state, argv []string, depth int) (verdict, []Classification) {
	if len(argv) < 2 || strings.HasPrefix(argv[1], "-") {
		return v(Observe, "lists applets"), nil
	}
	return verdict{cap: Observe, quiet: true}, s.run(argv[1:], depth)
}

// systemdRun starts a transient service: service control, plus the command.
func systemdRun(s *state, argv []string, depth int) (verdict, []Classification) {
	rest := skipOpts(argv[1:], set("-u", "--unit", "-p", "--property", "-M", "--machine", "-H", "--host", "--on-calendar", "--on-active", "--uid", "--gid", "-E", "--setenv", "--slice", "--description"))
	return v(ServiceControl, "starts a transient system service"), s.run(rest, depth)
}

// elevate runs a command as another user: privilege, plus the command.
func elevate(name string, withArg map[string]bool) handler {
	return func(s *state, argv []string, depth int) (verdict, []Classification) {
		own := v(Privilege, "runs a command as another user ("+name+")")
		rest := skipOpts(argv[1:], withArg)
		if len(rest) == 0 {
			return own, nil
		}
		if hasAny(argv[1:len(argv)-len(rest)], "-i", "-s", "--login", "--shell") {
			return own, []Classification{s.script(strings.Join(rest, " "), depth+1)}
		}
		return own, s.run(rest, depth)
	}
}

// elevateShell is su or runuser: privilege, plus the -c string.
func elevateShell(name string) handler {
	return func(s *state, argv []string, depth int) (verdict, []Classification) {
		own := v(Privilege, "runs commands as another user ("+name+")")
		args := argv[1:]
		for i, a := range args {
			if (a == "-c" || a == "--command") && i+1 < len(args) {
				return own, []Classification{s.script(args[i+1], depth+1)}
			}
			if a == "--" && name == "runuser" {
				return own, s.run(args[i+1:], depth)
			}
		}
		return own, nil
	}
}

// elevateAfter is chroot/nsenter/unshare: privilege (namespaces or a new
// root), plus the command after lead operands.
func elevateAfter(lead int, withArg map[string]bool) handler {
	return func(s *state, argv []string, depth int) (verdict, []Classification) {
		own := v(Privilege, "changes the process's root or namespaces")
		rest := skipOpts(argv[1:], withArg)
		if len(rest) > lead {
			return own, s.run(rest[lead:], depth)
		}
		return own, nil
	}
}
