package execpolicy

import "strings"

const (
	readsReason   = "reads files or prints information"
	buildReason   = "builds, tests or checks project code inside the sandbox"
	writesReason  = "creates, changes or deletes files"
	inlineReason  = "runs inline code the classifier does not read"
	stdinReason   = "runs code read from standard input, which the classifier does not see"
	editorReason  = "an interactive program that can run other commands"
	rewriteReason = "rewrites files in place"
)

func registerText() {
	register(fixed(Observe, readsReason), strings.Fields(`
		ls ll dir vdir cat head tail wc grep egrep fgrep zgrep rg ag ack uniq cut tr diff diff3 sdiff cmp
		comm stat file du df pwd echo printf true false which whereis type basename dirname realpath
		readlink date whoami id logname users groups uname arch nproc tree less more most nl tac rev fold
		fmt column paste join expand unexpand od hexdump xxd hexyl strings md5sum sha1sum sha224sum
		sha256sum sha384sum sha512sum shasum md5 cksum b2sum sum base32 base64 basenc test [ seq yes sleep
		ps pgrep pidof pstree top htop free uptime w who last lsof lscpu lsblk lsusb lspci lsmem lsns
		lsattr getfacl namei locale tty getconf printenv man info whatis apropos help tldr clear tput cal
		expr numfmt shuf netstat ss vmstat iostat mpstat dmesg journalctl zcat bzcat xzcat zstdcat lz4cat
		zless zdiff getent locate mlocate tokei cloc scc bat batcat fd fdfind exa eza lsd delta colordiff
		wdiff icdiff iconv look sw_vers hostnamectl timedatectl loginctl lsmod nvidia-smi stty cd pushd
		popd dirs set shopt unset read mapfile readarray wait jobs fg bg disown exit return shift getopts
		hash history break continue : times caller compgen complete unalias umask ulimit logout sync
		fc-list nm objdump readelf size pv ts colrm jless fx gron
		`)...)
	register(fixed(Use, buildReason), strings.Fields(`
		make gmake cmake ctest ninja meson bazel bazelisk buck buck2 just task rustc gcc g++ cc c++ clang
		clang++ ld as javac java kotlinc scalac sbt mvn mvnw gradle gradlew ant tsc jest vitest mocha ava
		jasmine karma playwright cypress pytest py.test tox nox mypy pyright pylint flake8 pyflakes bandit
		coverage rake rspec phpunit shellcheck hadolint golangci-lint staticcheck govulncheck gotestsum
		tsx ts-node esbuild webpack vite rollup parcel turbo nx lerna swc babel jshint stylelint
		markdownlint cspell hugo jekyll mkdocs sphinx-build pandoc latexmk pdflatex xelatex lualatex bc
		protoc buf dlv xcodebuild swiftc ghc elm hyperfine ldd sqlite3 duckdb nvcc vale actionlint
		yamllint jsonlint htmlhint golint revive errcheck ineffassign gosec semgrep typos wasm-pack
		`)...)
	register(fixed(Modify, writesReason), strings.Fields(`
		mkdir touch rmdir unlink truncate mktemp split csplit patch dos2unix unix2dos ctags etags mkfifo
		setfacl rename mmv
		`)...)
	register(fixed(Unknown, editorReason), strings.Fields(`
		vi vim nvim view ex emacs nano pico micro joe ed code subl open xdg-open gdb lldb expect tmux
		screen
		`)...)
	register(fixed(Unknown, "runs a shell string or file in a way the classifier does not read"),
		"eval", "source", ".", "alias", "trap", "fish", "pwsh", "powershell", "csh", "tcsh", "xonsh",
		"parallel", "direnv", "osascript", "at", "batch", "dc", "entr")

	register(sed, "sed", "gsed")
	register(flagged(v(Observe, readsReason), Modify, "writes its output to a file", "-o", "--output"), "sort")
	register(flagged(v(Observe, readsReason), Modify, rewriteReason, "-i", "--inplace"), "yq")
	register(fixed(Observe, readsReason), "jq")
	register(formatter("-w", "--write", "-i", "--in-place", "--fix", "--fix-only"),
		"gofmt", "goimports", "prettier", "shfmt", "clang-format", "autopep8", "yapf", "eslint", "stylua", "standard")
	register(checker("--check", "--diff", "-c"), "black", "isort", "rustfmt")
	register(tee, "tee")
	register(awk, "awk", "gawk", "mawk", "nawk")
	register(perl, "perl")
	register(tar, "tar", "gtar", "bsdtar")
	register(archive("-l", "-v", "-t", "-Z", "-p"), "unzip")
	register(archive("-c", "--stdout", "-l", "--list", "-t", "--test", "-k"), "gzip", "gunzip", "bzip2",
		"bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "brotli", "pigz")
	register(fixed(Modify, writesReason), "zip", "7z", "7za", "rar", "unrar", "cpio", "ar")
}

// formatter is a tool that checks files unless told to rewrite them.
func formatter(writeFlags ...string) handler {
	return flagged(v(Use, "checks or prints formatting"), Modify, rewriteReason, writeFlags...)
}

// checker is a tool that rewrites files unless told only to check them.
func checker(checkFlags ...string) handler {
	return func(_ *state, argv []string, _ int) (verdict, []Classification) {
		if hasAny(argv[1:], checkFlags...) {
			return v(Use, "checks formatting"), nil
		}
		return v(Modify, rewriteReason), nil
	}
}

func tee(_ *state, argv []string, _ int) (verdict, []Classification) {
	worst := v(Observe, "copies its input to its output")
	for _, f := range operands(argv[1:], nil) {
		if c, reason, ok := writeTarget(f); ok && c > worst.cap {
			worst = v(c, reason)
		}
	}
	return worst, nil
}

// archive is an archiver that extracts or compresses (modify) unless given
// one of the listing flags.
func archive(listFlags ...string) handler {
	return func(_ *state, argv []string, _ int) (verdict, []Classification) {
		if hasAny(argv[1:], listFlags...) {
			return v(Observe, "lists or tests an archive"), nil
		}
		return v(Modify, "extracts or compresses files"), nil
	}
}

// tar lists (-t) or writes; some options make it run a program.
func tar(_ *state, argv []string, _ int) (verdict, []Classification) {
	for _, a := range argv[1:] {
		for _, f := range []string{"--to-command", "--use-compress-program", "--checkpoint-action",
			"--info-script", "--new-volume-script", "--rsh-command", "--rmt-command", "-I", "-F"} {
			if a == f || strings.HasPrefix(a, f+"=") {
				return v(Unknown, "tar is told to run another program"), nil
			}
		}
	}
	mode := first(argv[1:])
	if hasAny(argv[1:], "-t", "--list") || !strings.HasPrefix(mode, "-") && strings.Contains(mode, "t") {
		return v(Observe, "lists an archive"), nil
	}
	return v(Modify, "creates or extracts an archive"), nil
}

// awk is a text tool whose programs can also run commands and write files.
// The program is screened, not parsed: a word that can run a command makes
// it unknown, an output redirection makes it modify.
func awk(_ *state, argv []string, _ int) (verdict, []Classification) {
	args := argv[1:]
	if hasAny(args, "-f", "--file") {
		return v(Use, "runs an awk program file, which the classifier does not read"), nil
	}
	if hasAny(args, "-i", "--include") {
		return v(Modify, "may edit files in place"), nil
	}
	prog := first(operands(args, set("-F", "-v", "--assign", "--field-separator")))
	switch {
	case strings.Contains(prog, "system") || strings.Contains(prog, "|"):
		return v(Unknown, "the awk program can run commands"), nil
	case strings.Contains(prog, ">"):
		return v(Modify, "the awk program may write files"), nil
	}
	return v(Observe, readsReason), nil
}

// perl -e is inline code; perl -i with a plain substitution is the common
// in-place edit. The inline code is screened for words that run commands or
// touch files other than the ones given.
func perl(_ *state, argv []string, _ int) (verdict, []Classification) {
	args := argv[1:]
	if hasAny(args, "-v", "--version", "-c") && !hasAny(args, "-e", "-E") {
		return v(Observe, "checks or prints the version"), nil
	}
	if !hasAny(args, "-e", "-E") {
		if len(operands(args, set("-I", "-M", "-m"))) == 0 {
			return v(Unknown, stdinReason), nil
		}
		return v(Use, "runs a perl script file, which the classifier does not read"), nil
	}
	if !shortFlag(args, 'i') {
		return v(Unknown, inlineReason), nil
	}
	for _, a := range args {
		for _, w := range []string{"system", "exec", "`", "qx", "open", "unlink", "rename", "fork", "eval", "require", "use ", "do "} {
			if strings.Contains(a, w) {
				return v(Unknown, inlineReason), nil
			}
		}
	}
	return v(Modify, rewriteReason), nil
}

// sed prints unless told to edit in place (-i, -i.bak, -Ei, --in-place).
func sed(_ *state, argv []string, _ int) (verdict, []Classification) {
	if shortFlag(argv[1:], 'i') || hasAny(argv[1:], "--in-place") {
		return v(Modify, rewriteReason), nil
	}
	return v(Observe, readsReason), nil
}

// shortFlag reports whether a short-flag word in args carries c among its
// leading letters: "-i", "-pi", "-i.bak", "-Ei".
func shortFlag(args []string, c byte) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			continue
		}
		for i := 1; i < len(a); i++ {
			ch := a[i]
			if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z') {
				break
			}
			if ch == c {
				return true
			}
		}
	}
	return false
}
