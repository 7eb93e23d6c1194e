package execpolicy

import (
	"strings"
	"testing"
)

// Each wrapper is read through to the command it runs: the verdict and the
// program are the inner command's (or the wrapper's own, when it adds a
// riskier capability such as sudo's privilege).
func TestUnwrap(t *testing.T) {
	tests := []struct {
		argv    []string
		cap     Capability
		program string
	}{
		{[]string{"sh", "-c", "ls"}, Observe, "ls"},
		{[]string{"bash", "-lc", "git status"}, Observe, "git"},
		{[]string{"bash", "-euc", "rm x"}, Modify, "rm"},
		{[]string{"bash", "-o", "pipefail", "-c", "curl https://x | tee f"}, Network, "curl"},
		{[]string{"bash", "-euo", "pipefail", "-c", "rm y"}, Modify, "rm"},
		{[]string{"zsh", "-c", "ls"}, Observe, "ls"},
		{[]string{"dash", "-c", "rm -rf /"}, Critical, "rm"},
		{[]string{"/bin/sh", "-c", "rm -rf /"}, Critical, "rm"},
		{[]string{"env", "FOO=1", "BAR=2", "ls"}, Observe, "ls"},
		{[]string{"env", "-i", "-u", "X", "--", "curl", "x"}, Network, "curl"},
		{[]string{"env", "-S", "rm -rf /"}, Critical, "rm"},
		{[]string{"xargs", "-0", "-n1", "rm"}, Modify, "rm"},
		{[]string{"xargs", "-I", "{}", "cp", "{}", "dst/"}, Modify, "cp"},
		{[]string{"xargs", "rm", "-rf"}, Unknown, "rm"}, // deletes directories named by its input
		{[]string{"xargs", "-I{}", "rm", "-rf", "{}"}, Unknown, "rm"},
		{[]string{"xargs", "-0", "grep", "-l", "x"}, Observe, "grep"},
		{[]string{"xargs"}, Observe, "echo"},
		{[]string{"find", ".", "-exec", "grep", "-l", "x", "{}", ";"}, Observe, "find"},
		{[]string{"find", ".", "-execdir", "rm", "{}", "+"}, Modify, "rm"},
		{[]string{"find", ".", "-ok", "curl", "-T", "{}", "https://x", ";"}, Network, "curl"},
		{[]string{"timeout", "-s", "KILL", "10", "curl", "x"}, Network, "curl"},
		{[]string{"timeout", "10"}, Observe, "timeout"},
		{[]string{"nice", "-n", "5", "make"}, Use, "make"},
		{[]string{"nice", "-10", "rm", "x"}, Modify, "rm"},
		{[]string{"nohup", "./server"}, Use, "./server"},
		{[]string{"stdbuf", "-oL", "tail", "-f", "x"}, Observe, "tail"},
		{[]string{"time", "-f", "%e", "go", "test"}, Use, "go"},
		{[]string{"command", "rm", "x"}, Modify, "rm"},
		{[]string{"command", "-v", "rm"}, Observe, "command"},
		{[]string{"exec", "rm", "-rf", "/"}, Critical, "rm"},
		{[]string{"sudo", "-u", "bob", "-E", "ls"}, Privilege, "sudo"},
		{[]string{"sudo", "rm", "-rf", "/"}, Critical, "rm"},
		{[]string{"doas", "-u", "root", "ls"}, Privilege, "doas"},
		{[]string{"su", "-c", "rm -rf /", "root"}, Critical, "rm"},
		{[]string{"chroot", "/mnt", "ls"}, Privilege, "chroot"},
		{[]string{"watch", "-n", "2", "df", "-h"}, Observe, "df"},
		{[]string{"watch", "curl x | sh"}, Unknown, "sh"},
		{[]string{"git", "-c", "alias.st=!curl https://x", "st"}, Network, "curl"},
		{[]string{"git", "-c", "core.sshCommand=ssh -i k", "fetch"}, Network, "git"},
		{[]string{"git", "-c", "core.pager=less", "log"}, Observe, "git"},
		{[]string{"git", "rebase", "-x", "rm -rf ~", "main"}, Critical, "rm"},
		{[]string{"git", "bisect", "run", "curl", "x"}, Network, "curl"},
		{[]string{"git", "submodule", "foreach", "rm", "-rf", "/"}, Critical, "rm"},
		{[]string{"busybox", "rm", "-rf", "/"}, Critical, "rm"},
		{[]string{"python3", "-m", "pip", "install", "x"}, PackageInstall, "pip"},
		{[]string{"python3.12", "-m", "pytest"}, Use, "pytest"},
		{[]string{"uv", "run", "python", "-c", "x"}, Unknown, "python"},
		{[]string{"npx", "--no-install", "eslint", "."}, Use, "eslint"},
		{[]string{"flock", "/tmp/lock", "make"}, Use, "make"},
		{[]string{"strace", "-f", "ls"}, Observe, "ls"},
		{[]string{"systemd-run", "--user", "sleep", "1"}, ServiceControl, "systemd-run"},
		{[]string{"poetry", "run", "rm", "-rf", "/"}, Critical, "rm"},
		{[]string{"bash", "script.sh"}, Use, "bash"},
		{[]string{"bash", "-c", `bash -c "bash -c 'rm -rf /'"`}, Critical, "rm"},
		{[]string{"sh", "-c", ""}, Observe, "sh"},
		{[]string{"/usr/bin/env", "bash", "-c", "ls"}, Observe, "ls"},
		{[]string{"./ls"}, Use, "./ls"},
		{[]string{"/tmp/ls"}, Unknown, "/tmp/ls"},
	}
	for _, tt := range tests {
		got := Classify(tt.argv)
		if got.Capability != tt.cap || got.Program != tt.program {
			t.Errorf("%q: got %s %q (%s), want %s %q", tt.argv, got.Capability, got.Program, got.Reason, tt.cap, tt.program)
		}
		checkInvariants(t, strings.Join(tt.argv, " "), got)
	}
}

// A wrapper that adds something is a part of its own, beside what it runs.
func TestUnwrapKeepsWrapperAndInner(t *testing.T) {
	got := Classify([]string{"sudo", "apt-get", "install", "-y", "curl"})
	if len(got.Parts) != 2 || got.Parts[0].Program != "sudo" || got.Parts[1].Program != "apt-get" ||
		got.Parts[1].Capability != PackageInstall {
		t.Fatalf("parts = %+v", got.Parts)
	}
	if got.Capability != Privilege || got.Outcome != Deny {
		t.Fatalf("got %s/%s, want privilege/deny", got.Capability, got.Outcome)
	}
}

// Each attack hides a dangerous command behind something harmless; its
// benign twin is the same shape around a harmless command. The attack must
// be denied AND the twin allowed: a verdict that came from the wrapper
// rather than the content would fail one of the two.
func TestAttacksAndTwins(t *testing.T) {
	pairs := []struct{ attack, twin string }{
		{"timeout 10 rm -rf /", "timeout 10 ls /"},
		{"ls | rm -rf ~", "ls | wc -l"},
		{"echo $(rm -rf ~)", "echo $(date)"},
		{"echo `rm -rf ~`", "echo `date`"},
		{"cat <(rm -rf ~)", "cat <(ls)"},
		{"r'm' -rf /", "l's' -la /"},
		{`\rm -rf /`, `\ls /`},
		{"{rm,-rf,/}", "{ls,-la,/}"},
		{"find / -exec rm -rf {} +", "find / -exec ls {} +"},
		{"xargs rm -rf / < /dev/null", "xargs ls / < /dev/null"},
		{"sh -c 'sh -c \"rm -rf /\"'", "sh -c 'sh -c \"ls /\"'"},
		{"git -c core.pager='rm -rf ~' log", "git -c core.pager='less -R' log"},
		{"git -c alias.x='!rm -rf /' x", "git -c alias.x='!git status' x"},
		{"f() { rm -rf /; }", "f() { ls /; }"},
		{":(){ :|:& };:", ":(){ echo; };:"},
		{"if true; then rm -rf ~; fi", "if true; then ls ~; fi"},
		{"case x in x) rm -rf /;; esac", "case x in x) ls /;; esac"},
		{"for i in 1; do rm -rf /; done", "for i in 1; do ls /; done"},
		{"a=$(rm -rf /)", "a=$(ls /)"},
		{"[[ $(rm -rf /) ]]", "[[ $(ls /) ]]"},
		{"echo c > /proc/sysrq-trigger", "echo c > /dev/null"},
		{"dd if=/dev/zero of=/dev/sda", "dd if=/dev/zero of=/dev/null"},
		{"chmod -R 777 /", "chmod -R 755 ./bin"},
		{"kill -9 -1", "kill -9 1234"},
		{"env -S 'rm -rf /'", "env -S 'ls /'"},
		{"busybox rm -rf /", "busybox ls /"},
	}
	for _, p := range pairs {
		a := Classify([]string{"bash", "-c", p.attack})
		b := Classify([]string{"bash", "-c", p.twin})
		if a.Outcome != Deny {
			t.Errorf("attack %q: got %s/%s (%s), want deny", p.attack, a.Capability, a.Outcome, a.Reason)
		}
		if b.Outcome > AllowScoped {
			t.Errorf("twin %q: got %s/%s (%s), want allow or allow-scoped", p.twin, b.Capability, b.Outcome, b.Reason)
		}
	}
}

// A relative program path is the working tree's program, unless it can be
// the system's: climbing out, a cd away, or a known name (bin/rm after
// cd /).
func TestRelativePrograms(t *testing.T) {
	for _, tt := range []struct {
		script string
		cap    Capability
	}{
		{"./gradlew build", Use},
		{"scripts/test.sh", Use},
		{"./ls", Use},
		{"../../../../bin/rm -rf /", Unknown},
		{"cd / && bin/rm -rf /", Critical},
		{"cd / && usr/sbin/mystery", Unknown},
		{"cd ~ && ./run.sh", Unknown},
		{"cd sub && ./run.sh", Use},
		{"cd \"$D\" && ./run.sh", Unknown},
		{"./bin/curl https://x", Network},
		{"./timeout 5 rm -rf /", Critical},
	} {
		got := Classify([]string{"bash", "-c", tt.script})
		if got.Capability != tt.cap {
			t.Errorf("%q: got %s (%s), want %s", tt.script, got.Capability, got.Reason, tt.cap)
		}
	}
}
