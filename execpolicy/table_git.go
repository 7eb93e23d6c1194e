package execpolicy

import (
	"strings"
	"sync"
)

func registerGit() {
	register(git, "git")
	register(fixed(Credential, "reads or stores git credentials"), "git-credential-store", "git-credential-cache", "git-credential-osxkeychain", "git-credential-manager")
	register(gh, "gh")
	register(fixed(Network, "talks to a code-hosting service"), "glab", "hub", "tea", "bb")
}

var gitGlobalArg = sync.OnceValue(func() map[string]bool {
	return set("-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--list-cmds", "--attr-source")
})

// git reads the global options (some make git run other programs), then
// judges the subcommand.
func git(s *state, argv []string, depth int) (verdict, []Classification) {
	args := argv[1:]
	var parts []Classification
	aliases := map[string]bool{}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" && i+1 < len(args):
			i++
			parts = append(parts, s.gitConfig(args[i], depth)...)
			if name, ok := strings.CutPrefix(strings.ToLower(strings.SplitN(args[i], "=", 2)[0]), "alias."); ok {
				aliases[name] = true
			}
		case a == "--config-env" || strings.HasPrefix(a, "--config-env="):
			parts = append(parts, s.leaf(Unknown, "git", "reads git configuration from an environment variable the classifier cannot see"))
			if a == "--config-env" {
				i++
			}
		case strings.HasPrefix(a, "--exec-path="):
			parts = append(parts, s.leaf(Unknown, "git", "runs git's subcommands from another directory"))
		case gitGlobalArg()[a]:
			i++
		case a == "--version" || a == "--help" || a == "-h" || a == "--exec-path" || a == "--html-path" || a == "--man-path":
			return v(Observe, "prints information about git"), parts
		case strings.HasPrefix(a, "-"):
		case aliases[strings.ToLower(a)]:
			// The alias's expansion is already a part, classified above.
			return verdict{cap: Observe, reason: "runs an alias defined with -c", quiet: true}, parts
		default:
			own, inner := s.gitSub(a, args[i+1:], depth)
			return own, append(inner, parts...)
		}
	}
	return v(Observe, "prints git's usage"), parts
}

var gitSimple = sync.OnceValue(func() map[string]verdict {
	return subs(
		subGroup{`status log diff show blame shortlog describe rev-parse rev-list ls-files ls-tree cat-file grep
		whatchanged show-ref for-each-ref name-rev merge-base count-objects fsck verify-commit verify-tag
		check-ignore check-attr check-ref-format check-mailmap diff-tree diff-files diff-index var help version
		range-diff cherry annotate show-branch get-tar-commit-id verify-pack interpret-trailers column
		show-index unpack-file fmt-merge-msg patch-id`, v(Observe, "reads the repository")},
		subGroup{`add stage commit checkout switch restore merge rebase reset clean rm mv cherry-pick revert am
		apply init gc prune repack pack-refs update-index update-ref symbolic-ref write-tree commit-tree
		read-tree checkout-index mktag mktree hash-object sparse-checkout maintenance replace format-patch
		rerere merge-file prune-packed multi-pack-index commit-graph unpack-objects index-pack bundle
		mailinfo mailsplit citool`, v(Modify, "changes the repository or the working tree")},
		subGroup{`push pull fetch clone ls-remote send-email request-pull svn p4 fetch-pack send-pack http-fetch
		http-push`, v(Network, "talks to a remote repository")},
		subGroup{`daemon instaweb http-backend`, v(Network, "serves the repository on the network")},
		subGroup{`credential credential-store credential-cache`, v(Credential, "reads or stores git credentials")},
		subGroup{`difftool mergetool filter-branch web--browse`, v(Unknown, "runs a configured external program or shell filter")},
	)
})

// gitSub judges one git subcommand and its arguments.
func (s *state) gitSub(sub string, args []string, depth int) (verdict, []Classification) {
	switch sub {
	case "branch":
		return listOrChange(args, set("-l", "--list", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--show-current", "--no-color", "--color", "--column", "--no-column"),
			set("--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format")), nil
	case "tag":
		return listOrChange(args, set("-l", "--list", "-n", "--column", "--no-column", "--color", "-v", "--verify"),
			set("--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format")), nil
	case "remote":
		return gitRemote().judge(args), nil
	case "stash":
		return gitStash().judge(args), nil
	case "worktree", "notes", "reflog":
		return gitReadSub(sub).judge(args), nil
	case "config":
		return s.gitConfigCmd(args, depth)
	case "submodule":
		return s.gitSubmodule(args, depth)
	case "bisect":
		if len(args) > 0 && args[0] == "run" {
			return v(Modify, "checks out commits to bisect"), s.run(args[1:], depth)
		}
		return v(Modify, "checks out commits to bisect"), nil
	case "rebase":
		return s.gitRebase(args, depth)
	case "archive":
		if hasAny(args, "--remote") {
			return v(Network, "reads an archive from a remote repository"), nil
		}
		if hasAny(args, "-o", "--output") {
			return v(Modify, "writes an archive"), nil
		}
		return v(Observe, "reads the repository"), nil
	case "lfs":
		return gitLFS().judge(args), nil
	case "filter-repo":
		for _, a := range args {
			if strings.HasSuffix(strings.SplitN(a, "=", 2)[0], "-callback") {
				return v(Unknown, "runs inline python callbacks"), nil
			}
		}
		return v(Modify, "rewrites the repository's history"), nil
	}
	if vd, ok := gitSimple()[sub]; ok {
		return vd, nil
	}
	return v(Unknown, "not a git command this table knows; it may be an alias, which can run anything"), nil
}

// listOrChange is branch/tag: listing unless asked to create, delete or
// move one.
func listOrChange(args []string, list, withArg map[string]bool) verdict {
	listing := false
	for _, a := range args {
		if list[a] {
			listing = true
		}
	}
	if listing || len(operands(args, withArg)) == 0 && !hasAny(args, "-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-a", "-s", "-f") {
		return v(Observe, "lists refs")
	}
	return v(Modify, "creates, moves or deletes refs")
}

var (
	gitRemote = sync.OnceValue(func() subcommands {
		return subcommands{
			subs: subs(subGroup{"-v --verbose get-url", v(Observe, "lists remotes")},
				subGroup{"show prune update", v(Network, "talks to a remote repository")}),
			none:  v(Observe, "lists remotes"),
			other: v(Modify, "changes the repository's remotes"),
		}
	})
	gitStash = sync.OnceValue(func() subcommands {
		return subcommands{subs: subs(subGroup{"list show", v(Observe, "reads stashed changes")}),
			none: v(Modify, "stashes changes"), other: v(Modify, "changes stashed changes or the working tree")}
	})
	gitLFS = sync.OnceValue(func() subcommands {
		return subcommands{
			subs: subs(subGroup{"pull push fetch clone fetch-all", v(Network, "transfers large files with a remote")},
				subGroup{"ls-files status env version logs", v(Observe, "reads the repository")}),
			none: v(Observe, "prints usage"), other: v(Modify, "changes git-lfs configuration or files"),
		}
	})
)

func gitReadSub(sub string) subcommands {
	return subcommands{subs: subs(subGroup{"list show", v(Observe, "reads the repository")}),
		none: v(Observe, "reads the repository"), other: v(Modify, "changes the repository's "+sub)}
}

// gitConfigCmd: reading configuration is observe; writing a key that names
// a program is judged by that program; other writes are modify.
func (s *state) gitConfigCmd(args []string, depth int) (verdict, []Classification) {
	ops := operands(args, set("-f", "--file", "--blob", "--type", "--default", "--comment", "--value"))
	if len(ops) > 0 && (ops[0] == "get" || ops[0] == "list") || hasAny(args, "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l") {
		return v(Observe, "reads git configuration"), nil
	}
	if len(ops) > 0 && ops[0] == "set" {
		ops = ops[1:]
	}
	if len(ops) >= 2 {
		return v(Modify, "changes git configuration"), s.gitConfig(ops[0]+"="+ops[1], depth)
	}
	if hasAny(args, "--unset", "--unset-all", "--remove-section", "--rename-section", "-e", "--edit") || len(ops) > 0 && (ops[0] == "unset" || ops[0] == "edit") {
		return v(Modify, "changes git configuration"), nil
	}
	return v(Observe, "reads git configuration"), nil
}

func (s *state) gitSubmodule(args []string, depth int) (verdict, []Classification) {
	rest := skipOpts(args, nil)
	switch first(rest) {
	case "", "status", "summary":
		return v(Observe, "reads submodules"), nil
	case "foreach":
		script := skipOpts(rest[1:], nil)
		return v(Observe, "runs a command in each submodule"), []Classification{s.script(strings.Join(script, " "), depth+1)}
	case "update", "add", "sync":
		return v(Network, "clones or fetches submodules"), nil
	}
	return v(Modify, "changes submodules"), nil
}

func (s *state) gitRebase(args []string, depth int) (verdict, []Classification) {
	var parts []Classification
	for i, a := range args {
		if (a == "-x" || a == "--exec") && i+1 < len(args) {
			parts = append(parts, s.script(args[i+1], depth+1))
		} else if val, ok := strings.CutPrefix(a, "--exec="); ok {
			parts = append(parts, s.script(val, depth+1))
		}
	}
	return v(Modify, "rewrites commits"), parts
}

// gitCommandKeys are configuration keys whose value is a command git runs
// through the shell; the value is classified as a script.
func gitCommandKey(key string) bool {
	switch key {
	case "core.pager", "core.editor", "core.sshcommand", "sequence.editor", "diff.external", "gpg.program",
		"core.fsmonitor", "uploadpack.packobjectshook", "core.gitproxy", "core.askpass", "credential.helper":
		return true
	}
	return strings.HasPrefix(key, "pager.") || strings.HasPrefix(key, "filter.") ||
		strings.HasPrefix(key, "gpg.") && strings.HasSuffix(key, ".program") ||
		strings.HasPrefix(key, "diff.") && (strings.HasSuffix(key, ".textconv") || strings.HasSuffix(key, ".command")) ||
		strings.HasSuffix(key, ".cmd") || strings.HasPrefix(key, "merge.") && strings.HasSuffix(key, ".driver") ||
		strings.HasPrefix(key, "remote.") && (strings.HasSuffix(key, ".uploadpack") || strings.HasSuffix(key, ".receivepack"))
}

// gitHiddenKey names keys that make git load or run something the
// classifier cannot see (hooks, included files, transports).
func gitHiddenKey(key string) bool {
	switch key {
	case "core.hookspath", "include.path", "core.worktree", "safe.directory", "core.sshcommand":
		return true
	}
	return strings.HasPrefix(key, "includeif.") || strings.HasPrefix(key, "protocol.") || strings.HasPrefix(key, "url.") ||
		strings.HasPrefix(key, "http.") && strings.HasSuffix(key, "proxy")
}

// gitConfig judges one "-c key=value" (or a config write): a command-valued
// key is judged by its command, an alias by what it expands to, a key that
// loads hidden behaviour is unknown, anything else is harmless.
func (s *state) gitConfig(kv string, depth int) []Classification {
	key, val, _ := strings.Cut(kv, "=")
	key = strings.ToLower(key)
	switch {
	case strings.HasPrefix(key, "alias."):
		if cmd, ok := strings.CutPrefix(val, "!"); ok {
			return []Classification{s.script(cmd, depth+1)}
		}
		return []Classification{s.argv(append([]string{"git"}, strings.Fields(val)...), depth+1)}
	case key == "core.fsmonitor" && (val == "true" || val == "false" || val == ""):
		return nil
	case key == "credential.helper" && val == "":
		return nil
	case gitCommandKey(key):
		return []Classification{s.script(val, depth+1)}
	case gitHiddenKey(key):
		return []Classification{s.leaf(Unknown, "git", "configures git ("+key+") to load or run something the classifier cannot see")}
	}
	return nil
}

// gh is the GitHub CLI: everything talks to GitHub, except printing the
// token, which is a credential, and extensions, which are programs.
func gh(_ *state, argv []string, _ int) (verdict, []Classification) {
	args := skipOpts(argv[1:], set("-R", "--repo", "--hostname"))
	sub, rest := first(args), []string{}
	if len(args) > 1 {
		rest = args[1:]
	}
	switch sub {
	case "", "help", "version", "--version", "completion":
		return v(Observe, "prints information about gh"), nil
	case "auth":
		if first(rest) == "token" || hasAny(rest, "-t", "--show-token") {
			return v(Credential, "prints a GitHub token"), nil
		}
		if first(rest) == "status" {
			return v(Network, "checks the GitHub login"), nil
		}
		return v(Credential, "changes the GitHub login"), nil
	case "extension", "extensions", "ext":
		if first(rest) == "list" || first(rest) == "ls" {
			return v(Observe, "lists extensions"), nil
		}
		return v(PackageInstall, "installs or runs a gh extension"), nil
	case "alias":
		return v(Unknown, "gh aliases can run shell commands"), nil
	case "auth-token":
		return v(Credential, "prints a GitHub token"), nil
	}
	if ghKnown()[sub] {
		return v(Network, "talks to GitHub"), nil
	}
	return v(Unknown, "not a gh command this table knows; it may be an extension or alias"), nil
}

var ghKnown = sync.OnceValue(func() map[string]bool {
	return set(strings.Fields(`browse codespace cs gist issue org pr project release repo cache run workflow api
	config gpg-key label ruleset search secret ssh-key status variable attestation copilot agent-task preview`)...)
})
