// Package execpolicy reads a command for what it does, before any of it
// runs, and says what a harness should do with it.
//
// The file seam cannot tell "systemctl status nginx" from "systemctl
// restart nginx": neither writes a file the policy cares about, and one
// observes while the other changes the machine. [Classify] gives each
// command a [Capability] (observe < use < modify < network <
// service-control < package-install < privilege < credential < critical,
// and unknown) and maps it to an [Outcome] (allow, allow-scoped,
// ask-approval, deny) through a table a deployment can change
// ([Config.Compile]).
//
// # What it guarantees
//
//   - A command it does not recognise is [Unknown], and Unknown is never
//     allowed: the default maps it to ask-approval, and a [Config] that maps
//     it to allow or allow-scoped does not compile.
//   - A command that hides others is classified by the riskiest thing inside
//     it, never by its wrapper. Shell strings (sh/bash/zsh -c, su -c, watch,
//     env -S, git aliases and command-valued git settings) are parsed with
//     mvdan.cc/sh, never split with a pattern: pipelines, && || ; lists,
//     subshells, blocks, if/for/while/case bodies, function bodies, command
//     and process substitutions (also inside assignments, here-documents,
//     arithmetic and tests) and brace expansion ({rm,-rf,/} is three words).
//     Wrappers (env, xargs, find -exec, timeout, nice, nohup, stdbuf, time,
//     command, exec, setsid, flock, strace, busybox, sudo, doas, pkexec,
//     chroot, nsenter, unshare, poetry/uv/bundle run …) are read through; a
//     wrapper that adds something of its own (sudo's privilege) is a part
//     beside what it runs.
//   - "Riskiest" is the most severe outcome first, then the highest
//     capability. The verdict of a [Classification] always equals the
//     riskiest of its Parts.
//   - A redirection that writes a file is at least modify (/dev/null and
//     the standard streams are not); a write to a raw disk or
//     /proc/sysrq-trigger is critical; a write to a file that runs code
//     later outside the command (shell start-up files, authorized_keys,
//     .git/hooks, /etc/sudoers, cron) is privilege. Reading a secret file
//     (private keys, .env, cloud and registry credentials, /etc/shadow,
//     /proc/*/environ) is credential, whichever program reads it.
//   - Work is bounded: nesting depth, the number of commands, the size of an
//     argv and of a script, bracket nesting before parsing, and brace
//     expansion. Past a bound the command is Unknown; it is never a panic or
//     a stack overflow (the parser itself runs under recover).
//
// # Decisions worth knowing
//
//   - Inline code (python -c, node -e, perl -e, ruby -e, php -r, deno eval)
//     and code from standard input (curl … | sh, python - <<EOF) are
//     Unknown: the classifier cannot read it, and it is the cheapest way to
//     hide an action from a classifier. A script file run by an interpreter
//     (python app.py, node index.js, bash build.sh, ./gradlew) is Use: it
//     is project code, and the sandbox, not the classifier, bounds it.
//     perl -pi -e with a plain substitution is the one exception (modify):
//     its expression is screened for words that run commands or open files.
//   - A program named by a path is judged by its name only inside the
//     system's program directories; ./ls is whatever was written there (Use),
//     /opt/x/bin/tool is Unknown.
//   - git -c and git config settings whose value is a command (core.pager,
//     core.editor, core.sshCommand, alias.* with "!", filters, diff drivers
//     …) are classified by that command; settings that load or run what the
//     classifier cannot see (core.hooksPath, include.path, includeIf.*,
//     protocol.*, url.*, --exec-path, --config-env) are Unknown, so at least
//     ask-approval. Neither is privilege: they run code as the same user.
//     A git subcommand the table does not know may be an alias: Unknown.
//   - docker/podman run, exec and cp, and kubectl exec/run/cp/port-forward
//     are privilege (the daemon is root; a bind mount of / owns the host);
//     lifecycle verbs (start, stop, build, compose up, kubectl apply/delete)
//     are service-control; ps/logs/get are observe, but reading cluster
//     secrets is credential.
//   - npx, pnpm dlx, yarn dlx, bunx, uvx and pipx run are package-install:
//     they may fetch code; npx --no-install is read through to its command.
//   - curl and wget to localhost are Use; to any other host, Network.
//   - Setting PATH (ahead of the inherited $PATH), LD_PRELOAD, BASH_ENV,
//     GIT_SSH_COMMAND and similar is Unknown: after it, no program name in
//     the command can be trusted.
//   - rm -r of a target that starts with a run-time value ("$DIR"/*) is
//     Unknown: an empty value makes it the root. rm -rf . and rm -rf * are
//     modify: they are confined to the working tree by the sandbox.
//   - A prefix rule from a [Config] decides the command it matches, first
//     matching rule wins, before the built-in table. It decides that command
//     only, never what it runs: a rule allowing sudo does not allow
//     "sudo rm -rf /". A rule that allows a program the table does not know
//     reports it as Use.
//
// # Threat model
//
// The classifier is a guess, and the sandbox is the enforcement. It reads
// text; it cannot see:
//   - what a script, Makefile, package.json script, test or module run by an
//     allowed interpreter or build tool does (make, npm test, go generate,
//     python app.py are Use on trust in the confinement);
//   - aliases and functions defined outside the command (in start-up files
//     a login shell reads: bash -lc runs ~/.bash_profile first), and
//     programs that read their own configuration (git hooks and config, npm
//     lifecycle scripts, .envrc, ssh config, pip.conf);
//   - PATH shadowing set up before the command (a git earlier in PATH than
//     /usr/bin/git), and the contents of files and variables at run time
//     ($VAR, $(…) outputs, words xargs appends, what a here-string feeds);
//   - what happens on another host (ssh host cmd is Network; cmd is not read);
//   - bash arithmetic that evaluates a variable holding $(…).
//
// # Not classified
//
// These are deliberately left to the confinement or to Unknown: the
// contents of sed programs (GNU sed's e and w commands), awk programs beyond
// a screen for system() and pipes, sqlite3 dot-commands (.shell), make and
// just targets, interactive programs (editors, debuggers, REPLs, tmux: all
// Unknown), PowerShell and fish (Unknown), the remote command of ssh, the
// working directory a cd leaves behind (cd / && rm -rf * is modify), and
// programs outside the table (Unknown). Loops that spawn forever (while :;
// do sh & done) are not recognised as fork bombs; the process limit is the
// defence.
package execpolicy
