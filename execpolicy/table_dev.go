package execpolicy

import (
	"strings"
	"sync"
)

const (
	installReason = "downloads and installs software"
	dlxReason     = "downloads and runs a package"
	scriptReason  = "runs a project script, which the classifier does not read"
)

var (
	observeInfo = v(Observe, "prints information")
	useBuild    = v(Use, buildReason)
	pkgInstall  = v(PackageInstall, installReason)
	netTalk     = v(Network, "talks to a package registry")
)

func registerDev() {
	register(goTool, "go")
	register(subcommands{subs: subs(
		subGroup{"build b check c test t run r bench doc clippy package nextest llvm-cov expand deny machete insta miri", useBuild},
		subGroup{"fix fmt new init clean remove rm", v(Modify, "changes project files")},
		subGroup{"install uninstall add binstall", pkgInstall},
		subGroup{"update fetch publish search owner yank vendor generate-lockfile audit outdated", netTalk},
		subGroup{"login logout", v(Credential, "stores a registry token")},
		subGroup{"tree metadata version pkgid locate-project read-manifest verify-project help --version -V --list", observeInfo},
	), globalArg: set("--manifest-path", "-Z", "--config", "-C"), none: observeInfo,
		other: v(Unknown, "not a cargo command this table knows; cargo runs external cargo-* programs")}.handler(), "cargo")
	register(npm, "npm")
	register(jsPM("yarn", "install add remove upgrade up dedupe import", "dlx create"), "yarn")
	register(jsPM("pnpm", "install i add update up upgrade remove rm uninstall un link unlink prune rebuild import fetch", "dlx create"), "pnpm")
	register(jsPM("bun", "install i add remove rm update upgrade link pm", "x create"), "bun")
	register(dlx, "npx", "bunx", "pnpx", "uvx")
	register(pip, "pip", "pip3")
	register(uv, "uv")
	register(runner("run", "install add update remove lock sync", "show check env version about search list"), "poetry", "pipenv", "pdm", "hatch", "rye")
	register(runner("exec", "install update add", "check list show outdated info"), "bundle", "bundler")
	register(runner("run", "install create update remove upgrade", "list info search config"), "conda", "mamba", "micromamba")
	register(runner("", "run install update uninstall inject upgrade reinstall upgrade-all", "list environment"), "pipx")
	register(runner("run", "install update remove upgrade target component toolchain self", "show which list --version"), "rustup")
	register(subcommands{subs: subs(subGroup{"install update uninstall pristine", pkgInstall},
		subGroup{"list search info env contents specification which --version", observeInfo},
		subGroup{"push owner yank signin", netTalk}), none: observeInfo, other: useBuild}.handler(), "gem")
	register(subcommands{subs: subs(subGroup{"install require update remove create-project global", pkgInstall},
		subGroup{"show validate outdated licenses why depends diagnose --version", observeInfo},
		subGroup{"dump-autoload", v(Modify, "regenerates files")}), none: observeInfo, other: v(Use, scriptReason)}.handler(), "composer")
	register(sysPM("search show list info policy depends rdepends madison provides query files whatprovides showpkg stats"),
		"apt", "apt-get", "aptitude", "dnf", "yum", "microdnf", "zypper", "apk", "port", "snap", "flatpak", "pkg", "pkgin", "yay", "paru", "emerge", "xbps-install", "nix-env", "choco", "winget", "scoop", "mas", "softwareupdate")
	register(brew, "brew")
	register(fixed(Observe, readsReason), "apt-cache", "apt-file", "dpkg-query", "rpmquery")
	register(flagged(v(Observe, "queries installed packages"), PackageInstall, installReason,
		"-i", "--install", "-r", "--remove", "-P", "--purge", "--configure", "--unpack", "-U", "--upgrade", "-e", "--erase", "-F", "--freshen"), "dpkg", "rpm")
	register(pacman, "pacman")
	register(fixed(PackageInstall, "fetches software into an environment"), "nix", "nix-shell", "nix-build", "cargo-binstall", "dpkg-reconfigure", "update-alternatives", "corepack", "volta", "nvm", "pyenv", "rbenv", "asdf", "mise", "sdk")
	register(subcommands{subs: subs(subGroup{"run test fmt lint check bench doc compile task info coverage types", useBuild},
		subGroup{"eval repl", v(Unknown, inlineReason)}, subGroup{"install add cache upgrade outdated", pkgInstall}),
		none: v(Unknown, stdinReason), other: v(Use, "runs a script file, which the classifier does not read")}.handler(), "deno")
	register(subcommands{subs: subs(subGroup{"build test run watch publish-local format", useBuild},
		subGroup{"restore add tool workload new", pkgInstall}, subGroup{"nuget", netTalk},
		subGroup{"--info --version --list-sdks --list-runtimes list", observeInfo}), none: observeInfo, other: useBuild}.handler(), "dotnet")
	register(subcommands{subs: subs(subGroup{"build test run", useBuild}, subGroup{"package", netTalk},
		subGroup{"--version", observeInfo}), none: v(Unknown, editorReason), other: useBuild}.handler(), "swift")
	register(subcommands{subs: subs(subGroup{"init get", pkgInstall}, subGroup{"plan refresh", v(Network, "reads remote infrastructure")},
		subGroup{"apply import taint untaint", v(ServiceControl, "changes remote infrastructure")},
		subGroup{"destroy", v(Critical, "destroys remote infrastructure")}, subGroup{"console", v(Unknown, inlineReason)},
		subGroup{"login logout", v(Credential, "stores a registry token")},
		subGroup{"validate fmt version graph output show providers state workspace -version --version", observeInfo}),
		globalArg: set("-chdir"), none: observeInfo, other: v(Unknown, "not a terraform command this table knows")}.handler(), "terraform", "tofu")
	register(fixed(ServiceControl, "configures remote machines"), "ansible", "ansible-playbook", "pulumi", "salt", "chef-client", "puppet")
	register(python, "python", "pypy")
	register(ruff, "ruff")
	register(subcommands{subs: subs(subGroup{"deps.get deps.update local.hex archive.install escript.install", pkgInstall},
		subGroup{"format", v(Modify, rewriteReason)}, subGroup{"new", v(Modify, "creates project files")}),
		none: useBuild, other: useBuild}.handler(), "mix")
	register(interp(set("-e", "--eval", "-p", "--print"), set("-r", "--require", "--import", "--loader", "--experimental-loader", "--env-file", "-C", "--conditions", "--input-type")), "node", "nodejs")
	register(interp(set("-e"), set("-I", "-r", "-C", "-E", "-x")), "ruby")
	register(interp(set("-r", "-a", "-S"), set("-c", "-d", "-z", "-t")), "php")
	register(interp(set("-e"), set("-l")), "lua", "luajit", "Rscript")
	register(interp(set("-e", "--eval"), nil), "tclsh", "guile", "sbcl", "racket", "elixir", "erl", "scala", "kotlin", "groovy", "jshell", "R", "julia", "ghci", "irb", "ipython", "bpython")
}

// goTool judges the go command by subcommand; a few flags make it run
// another program, and a module@version argument downloads code.
func goTool(s *state, argv []string, depth int) (verdict, []Classification) {
	args := argv[1:]
	sub, rest := first(args), []string{}
	if len(args) > 1 {
		rest = args[1:]
	}
	for _, a := range rest {
		name := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-")
		if name == "exec" || name == "toolexec" || name == "vettool" {
			return v(Unknown, "go is told to run its tools through another program"), nil
		}
	}
	switch sub {
	case "build", "test", "vet", "list", "tool", "doc", "bug", "test2json", "help":
		return useBuild, nil
	case "run":
		for _, a := range operands(rest, set("-o", "-p", "-tags", "-ldflags", "-gcflags", "-mod", "-modfile", "-overlay", "-C")) {
			if strings.Contains(a, "@") {
				return v(PackageInstall, "downloads and runs a module at a version"), nil
			}
		}
		return useBuild, nil
	case "generate":
		return v(Use, "runs the commands named in //go:generate directives, which the classifier does not read"), nil
	case "fmt", "fix", "work", "clean":
		return v(Modify, "changes project files"), nil
	case "get", "install":
		return pkgInstall, nil
	case "mod":
		switch first(rest) {
		case "download", "tidy", "vendor":
			return v(Network, "downloads modules"), nil
		case "graph", "why", "verify":
			return observeInfo, nil
		}
		return v(Modify, "changes go.mod"), nil
	case "env":
		if hasAny(rest, "-w", "-u") {
			return v(Modify, "changes go's environment file"), nil
		}
		return observeInfo, nil
	case "", "version", "telemetry":
		return observeInfo, nil
	}
	return v(Unknown, "not a go command this table knows"), nil
}

var npmSubs = sync.OnceValue(func() map[string]verdict {
	return subs(
		subGroup{"test t tst run run-script rum urn start stop restart pack", v(Use, scriptReason)},
		subGroup{`install i in ins inst insta instal isnt isnta isntal isntall add ci clean-install ic install-clean
		update up upgrade udpate uninstall remove rm r un unlink link ln dedupe ddp prune rebuild rb
		install-test it install-ci-test cit init create innit exec x`, pkgInstall},
		subGroup{`ls list ll la view info show v outdated explain why search help doctor fund --version -v
		version query prefix root bin get`, observeInfo},
		subGroup{"audit ping whoami publish unpublish deprecate dist-tag owner access team org star unstar repo docs bugs", netTalk},
		subGroup{"login adduser add-user logout token", v(Credential, "reads or stores a registry token")},
		subGroup{"cache config c set pkg", v(Modify, "changes npm's configuration or cache")},
	)
})

func npm(_ *state, argv []string, _ int) (verdict, []Classification) {
	rest := skipOpts(argv[1:], set("--prefix", "-C", "-w", "--workspace"))
	if len(rest) == 0 {
		return observeInfo, nil
	}
	sub := rest[0]
	if (sub == "config" || sub == "c" || sub == "pkg") && (first(rest[1:]) == "get" || first(rest[1:]) == "list" || first(rest[1:]) == "ls") {
		return observeInfo, nil
	}
	if sub == "audit" && first(rest[1:]) == "fix" {
		return pkgInstall, nil
	}
	if sub == "exec" || sub == "x" {
		return v(PackageInstall, dlxReason), nil
	}
	if vd, ok := npmSubs()[sub]; ok {
		return vd, nil
	}
	return v(Unknown, "not an npm command this table knows"), nil
}

// jsPM is yarn/pnpm/bun: install words and dlx words fetch software; a
// bare call installs (yarn, bun) ; anything else runs a package.json
// script.
func jsPM(name, install, dlxWords string) handler {
	sc := subcommands{subs: subs(
		subGroup{install, pkgInstall},
		subGroup{dlxWords, v(PackageInstall, dlxReason)},
		subGroup{"info why list ls outdated view --version -v -h --help help bin licenses", observeInfo},
		subGroup{"audit publish npm login logout whoami", netTalk},
		subGroup{"config set", v(Modify, "changes "+name+"'s configuration")},
	), globalArg: set("--cwd", "-C", "--dir", "--filter", "-F"), none: pkgInstall, other: v(Use, scriptReason)}
	if name == "pnpm" {
		sc.none = observeInfo
	}
	return sc.handler()
}

// dlx is npx and friends: fetch a package and run it, unless told to use
// only what is installed, in which case the command is read through.
func dlx(s *state, argv []string, depth int) (verdict, []Classification) {
	if hasAny(argv[1:], "--no-install", "--no", "--offline") {
		rest := skipOpts(argv[1:], set("-p", "--package", "-c", "--call"))
		return verdict{cap: Observe, quiet: true}, s.run(rest, depth)
	}
	return v(PackageInstall, dlxReason), nil
}

func pip(_ *state, argv []string, _ int) (verdict, []Classification) {
	rest := skipOpts(argv[1:], set("--python", "--log", "--proxy", "--cache-dir"))
	switch first(rest) {
	case "install", "download", "wheel", "uninstall":
		return pkgInstall, nil
	case "", "list", "freeze", "show", "check", "help", "debug", "inspect", "hash", "config", "--version", "-V":
		return observeInfo, nil
	case "index", "search":
		return netTalk, nil
	case "cache":
		return v(Modify, "changes pip's cache"), nil
	}
	return v(Unknown, "not a pip command this table knows"), nil
}

func uv(s *state, argv []string, depth int) (verdict, []Classification) {
	rest := skipOpts(argv[1:], set("--directory", "--project", "--python", "-p", "--cache-dir"))
	switch first(rest) {
	case "pip":
		return pip(s, append([]string{"pip"}, rest[1:]...), depth)
	case "add", "remove", "sync", "lock", "self", "python":
		return pkgInstall, nil
	case "tool":
		if first(rest[1:]) == "list" || first(rest[1:]) == "dir" {
			return observeInfo, nil
		}
		return v(PackageInstall, dlxReason), nil
	case "run":
		inner := skipOpts(rest[1:], set("--with", "--python", "-p", "--group", "--extra", "--package", "--env-file", "--directory", "--project"))
		return v(Use, "runs in the project environment, installing what it declares"), s.run(inner, depth)
	case "venv", "init":
		return v(Modify, "creates project files"), nil
	case "build":
		return useBuild, nil
	case "publish":
		return netTalk, nil
	case "", "tree", "version", "export", "help", "--version", "cache":
		return observeInfo, nil
	}
	return v(Unknown, "not a uv command this table knows"), nil
}

// runner is a project tool with a "run" (or "exec") word that runs the
// rest of its argv, install words, and read-only words.
func runner(runWord, install, read string) handler {
	sc := subcommands{subs: subs(subGroup{install, pkgInstall}, subGroup{read, observeInfo},
		subGroup{"shell", v(Unknown, "starts an interactive shell")}),
		globalArg: set("-C", "--directory", "-n", "--name", "-p", "--prefix"), none: pkgInstall, other: useBuild}
	return func(s *state, argv []string, depth int) (verdict, []Classification) {
		rest := skipOpts(argv[1:], sc.globalArg)
		if runWord != "" && first(rest) == runWord {
			inner := skipOpts(rest[1:], set("-n", "--name", "-p", "--prefix", "--cwd"))
			return verdict{cap: Use, reason: "runs a command in a project environment", quiet: len(inner) > 0}, s.run(inner, depth)
		}
		return sc.judge(argv[1:]), nil
	}
}

// sysPM is a system package manager: installing, removing and updating
// change the machine's software; a few words only read.
func sysPM(read string) handler {
	r := set(strings.Fields(read)...)
	return func(_ *state, argv []string, _ int) (verdict, []Classification) {
		rest := skipOpts(argv[1:], set("-o", "-c", "-t", "--option", "--config-file", "-R", "--root"))
		if len(rest) == 0 || r[rest[0]] || hasAny(argv[1:], "--version", "--help", "--dry-run", "--simulate") {
			return observeInfo, nil
		}
		return v(PackageInstall, "changes the machine's installed software"), nil
	}
}

func pacman(_ *state, argv []string, _ int) (verdict, []Classification) {
	for _, a := range argv[1:] {
		if strings.HasPrefix(a, "-Q") || strings.HasPrefix(a, "-Ss") || strings.HasPrefix(a, "-Si") || a == "-V" || a == "--version" {
			return observeInfo, nil
		}
	}
	return v(PackageInstall, "changes the machine's installed software"), nil
}

func brew(_ *state, argv []string, _ int) (verdict, []Classification) {
	rest := skipOpts(argv[1:], nil)
	switch first(rest) {
	case "", "list", "ls", "info", "search", "outdated", "deps", "uses", "config", "doctor", "--prefix", "--version", "--cellar", "leaves", "desc", "home", "commands", "help":
		return observeInfo, nil
	case "services":
		switch first(rest[1:]) {
		case "", "list", "info":
			return observeInfo, nil
		}
		return v(ServiceControl, "starts or stops a background service"), nil
	}
	return v(PackageInstall, "changes the machine's installed software"), nil
}

// python reads the interpreter's options: -c is inline code, -m runs a
// module (read through when the table knows it), a file is a script.
func python(s *state, argv []string, depth int) (verdict, []Classification) {
	args := argv[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" || shortCluster(a, 'c'):
			return v(Unknown, inlineReason), nil
		case a == "-m" || shortCluster(a, 'm'):
			if i+1 < len(args) {
				return s.pyModule(args[i+1], args[i+2:], depth)
			}
			return v(Unknown, "no module named"), nil
		case a == "-V" || a == "--version" || a == "-h" || a == "--help":
			return observeInfo, nil
		case a == "-W" || a == "-X" || a == "--check-hash-based-pycs":
			i++
		case a == "-":
			return v(Unknown, stdinReason), nil
		case strings.HasPrefix(a, "-"):
		case isDynamic(a):
			return v(Unknown, "runs a script named at run time"), nil
		default:
			return v(Use, "runs a python script file, which the classifier does not read"), nil
		}
	}
	return v(Unknown, stdinReason), nil
}

// shortCluster reports whether a is a cluster of short flags ending in c
// ("-Bc", "-um"): the last flag takes the next word.
func shortCluster(a string, c byte) bool {
	return len(a) > 2 && a[0] == '-' && a[1] != '-' && a[len(a)-1] == c && strings.Trim(a[1:], "bBdEhiIOqsSuvVx") == string(c)
}

var pyModules = sync.OnceValue(func() map[string]verdict {
	return map[string]verdict{
		"http.server": v(Network, "serves files on the network"), "SimpleHTTPServer": v(Network, "serves files on the network"),
		"smtpd": v(Network, "serves on the network"), "ensurepip": pkgInstall, "venv": v(Modify, "creates a virtual environment"),
		"virtualenv": v(Modify, "creates a virtual environment"), "pdb": v(Unknown, editorReason), "code": v(Unknown, editorReason),
		"twine": netTalk, "json.tool": observeInfo, "site": observeInfo, "sysconfig": observeInfo, "platform": observeInfo,
		"compileall": v(Modify, "writes bytecode files"), "zipapp": v(Modify, "writes an archive"),
	}
})

func (s *state) pyModule(mod string, rest []string, depth int) (verdict, []Classification) {
	if vd, ok := pyModules()[mod]; ok {
		return vd, nil
	}
	if _, ok := lookup(mod); ok && !strings.Contains(mod, "/") {
		return verdict{cap: Use, quiet: true}, s.run(append([]string{mod}, rest...), depth)
	}
	return v(Use, "runs an installed python module"), nil
}

// interp is an interpreter: an inline-code flag is unknown, a script file
// is use, nothing (or "-") reads code from standard input.
func interp(inline, withArg map[string]bool) handler {
	return func(_ *state, argv []string, _ int) (verdict, []Classification) {
		args := argv[1:]
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case inline[a] || len(a) > 2 && a[0] == '-' && a[1] != '-' && inline["-"+a[len(a)-1:]]:
				return v(Unknown, inlineReason), nil
			case a == "--version" || a == "-v" || a == "-V" || a == "--help" || a == "-h" || a == "-version":
				return observeInfo, nil
			case a == "--test":
				return v(Use, "runs the project's tests"), nil
			case withArg[a]:
				i++
			case a == "-":
				return v(Unknown, stdinReason), nil
			case strings.HasPrefix(a, "-"):
			case isDynamic(a):
				return v(Unknown, "runs a script named at run time"), nil
			default:
				return v(Use, "runs a script file, which the classifier does not read"), nil
			}
		}
		return v(Unknown, stdinReason), nil
	}
}

// ruff checks, unless told to format or fix.
func ruff(_ *state, argv []string, _ int) (verdict, []Classification) {
	sub := first(argv[1:])
	if sub == "format" && !hasAny(argv[2:], "--check", "--diff") || hasAny(argv[1:], "--fix") {
		return v(Modify, rewriteReason), nil
	}
	return v(Use, "checks code"), nil
}
