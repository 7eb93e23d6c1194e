package execpolicy

import (
	"net/url"
	"strings"
	"sync"
)

const (
	netReason     = "talks to another host"
	privReason    = "changes the system beyond the sandbox (needs root)"
	serviceReason = "starts, stops or reconfigures a service"
)

func registerSys() {
	register(fixed(Network, netReason), strings.Fields(`ssh scp sftp nc ncat netcat socat ping ping6 dig nslookup
		host telnet ftp lftp traceroute tracepath mtr whois aria2c nmap ssh-keyscan mosh psql mysql mongo mongosh
		redis-cli sqlcmd grpcurl websocat ngrok cloudflared tailscale openvpn wg curlie xh http https ab wrk
		hey k6 mail sendmail s3cmd rclone gsutil`)...)
	register(fetcher, "curl", "wget", "wget2")
	register(rsync, "rsync")
	register(openssl, "openssl")
	register(cloud("aws", [][2]string{{"configure", "get"}, {"configure", "export-credentials"}, {"sts", "get-session-token"},
		{"secretsmanager", "get-secret-value"}, {"ecr", "get-login-password"}, {"sso", "login"}, {"codeartifact", "get-authorization-token"}}), "aws")
	register(cloud("gcloud", [][2]string{{"auth", "print-access-token"}, {"auth", "print-identity-token"}, {"auth", "application-default"}, {"secrets", "versions"}}), "gcloud")
	register(cloud("az", [][2]string{{"account", "get-access-token"}, {"keyvault", "secret"}}), "az")
	register(fixed(Network, "talks to a cloud or hosting service"), "doctl", "flyctl", "fly", "heroku", "vercel", "netlify", "firebase", "wrangler", "eksctl", "oc")

	register(fixed(Credential, "reads or changes stored secrets"), "pass", "gopass", "op", "bw", "lpass", "secret-tool", "keyring", "vault", "sops", "age-keygen", "ssh-add")
	register(security, "security")
	register(gpg, "gpg", "gpg2")
	register(flagged(v(Modify, "creates a key file"), Credential, "reads a private key", "-y", "-e", "-l", "-p"), "ssh-keygen")

	register(systemctl, "systemctl")
	register(service, "service")
	register(subcommands{subs: subs(subGroup{"list print print-disabled blame version help", observeInfo}),
		none: observeInfo, other: v(ServiceControl, serviceReason)}.handler(), "launchctl")
	register(flagged(v(ServiceControl, "installs or removes scheduled jobs"), Observe, "lists scheduled jobs", "-l"), "crontab")
	register(containers("docker"), "docker", "podman", "nerdctl")
	register(compose, "docker-compose", "podman-compose")
	register(kubectl, "kubectl", "k", "kubecolor")
	register(subcommands{subs: subs(subGroup{"list ls status get show template lint search version env history verify", observeInfo},
		subGroup{"install upgrade uninstall delete rollback test", v(ServiceControl, "changes a cluster's releases")},
		subGroup{"repo pull push dependency registry plugin", netTalk}), none: observeInfo,
		other: v(Unknown, "not a helm command this table knows")}.handler(), "helm")

	register(fixed(Privilege, privReason), strings.Fields(`setcap umount insmod rmmod modprobe depmod setenforce chattr
		useradd usermod userdel groupadd groupdel groupmod passwd chpasswd visudo vipw vigr adduser deluser addgroup
		iptables ip6tables iptables-restore nft ufw firewall-cmd swapon swapoff mknod losetup efibootmgr
		grub-install update-grub dmsetup ldconfig setpriv newgrp sg route tc brctl chcon semanage apparmor_parser
		aa-disable aa-complain auditctl hwclock chsh chfn pam-auth-update update-initramfs dracut mokutil`)...)
	register(fixed(Observe, readsReason), "getcap", "getenforce", "sestatus", "aa-status", "ifstat")
	register(mount, "mount")
	register(sysctl, "sysctl")
	register(ipTool, "ip")
	register(ifconfig, "ifconfig")
	register(hostname, "hostname")

	register(fixed(Critical, "stops or restarts the machine"), "shutdown", "reboot", "halt", "poweroff", "kexec", "telinit", "killall5")
	register(initCmd, "init")
	register(kill, "kill")
	register(fixed(Modify, "signals processes by name"), "pkill", "killall")
}

// loopback reports whether a URL or host names this machine.
func loopback(a string) bool {
	host := a
	if u, err := url.Parse(a); err == nil && u.Host != "" {
		host = u.Hostname()
	} else {
		host, _, _ = strings.Cut(strings.TrimPrefix(host, "//"), "/")
		if h, _, ok := strings.Cut(host, ":"); ok && !strings.HasPrefix(host, "[") {
			host = h
		}
	}
	host = strings.Trim(host, "[]")
	return host == "localhost" || strings.HasPrefix(host, "127.") || host == "::1" || host == "0.0.0.0" || strings.HasSuffix(host, ".localhost")
}

// fetcher is curl/wget: network, except when every URL is this machine.
func fetcher(_ *state, argv []string, _ int) (verdict, []Classification) {
	ops := operands(argv[1:], set("-o", "-O", "--output", "-d", "--data", "--data-raw", "--data-binary", "-H", "--header",
		"-X", "--request", "-u", "--user", "-A", "--user-agent", "-e", "--referer", "-F", "--form", "-T", "--upload-file",
		"-w", "--write-out", "-m", "--max-time", "--connect-timeout", "-b", "--cookie", "-c", "--cookie-jar", "-P",
		"--directory-prefix", "--retry", "-x", "--proxy", "-K", "--config", "--output-document", "--resolve", "--cacert", "--cert", "--key"))
	if len(ops) == 0 {
		return v(Network, "fetches from another host"), nil
	}
	for _, a := range ops {
		if !loopback(a) {
			return v(Network, "fetches from another host"), nil
		}
	}
	out := v(Use, "talks to a server on this machine")
	args := argv[1:]
	for i, a := range args {
		if (a == "-o" || a == "-O" || a == "--output" || a == "--output-document") && i+1 < len(args) {
			if c, reason, ok := writeTarget(args[i+1]); ok {
				out = maxVerdict(out, v(c, reason))
			}
		}
	}
	return out, nil
}

// rsync is network when either side is remote, modify otherwise.
func rsync(_ *state, argv []string, _ int) (verdict, []Classification) {
	if hasAny(argv[1:], "-e", "--rsh", "--rsync-path") {
		return v(Network, "copies files with another host using a given program"), nil
	}
	for _, a := range operands(argv[1:], set("--exclude", "--include", "--filter", "-f", "--exclude-from", "--include-from", "--files-from", "--log-file", "--chmod", "--chown", "-T", "--temp-dir", "--partial-dir", "--backup-dir", "--suffix")) {
		if strings.HasPrefix(a, "rsync://") || strings.Contains(strings.SplitN(a, "/", 2)[0], ":") {
			return v(Network, "copies files with another host"), nil
		}
	}
	return v(Modify, "copies files"), nil
}

func openssl(_ *state, argv []string, _ int) (verdict, []Classification) {
	switch first(argv[1:]) {
	case "s_client", "s_server", "ocsp", "s_time":
		return v(Network, netReason), nil
	case "", "version", "help", "list", "x509", "verify", "dgst", "rand", "ciphers", "errstr", "asn1parse":
		return observeInfo, nil
	}
	return v(Use, "computes or converts cryptographic material"), nil
}

// cloud is a cloud CLI: every call talks to the provider; the listed
// subcommand pairs print a secret.
func cloud(name string, secrets [][2]string) handler {
	return func(_ *state, argv []string, _ int) (verdict, []Classification) {
		ops := operands(argv[1:], set("--profile", "--region", "--project", "--output", "--format", "--subscription", "--query"))
		if len(ops) == 0 || ops[0] == "help" || ops[0] == "version" || hasAny(argv[1:], "--version") {
			return observeInfo, nil
		}
		for _, p := range secrets {
			if ops[0] == p[0] && len(ops) > 1 && ops[1] == p[1] {
				return v(Credential, "prints or obtains "+name+" credentials"), nil
			}
		}
		if ops[0] == "configure" || ops[0] == "login" || ops[0] == "auth" {
			return v(Credential, "changes "+name+" credentials"), nil
		}
		return v(Network, "talks to "+name), nil
	}
}

func security(_ *state, argv []string, _ int) (verdict, []Classification) {
	switch first(argv[1:]) {
	case "find-generic-password", "find-internet-password", "dump-keychain", "export", "find-certificate", "unlock-keychain", "add-generic-password", "add-internet-password", "delete-generic-password":
		return v(Credential, "reads or changes the keychain"), nil
	}
	return v(Privilege, "changes the system's security configuration"), nil
}

func gpg(_ *state, argv []string, _ int) (verdict, []Classification) {
	if hasAny(argv[1:], "--export-secret-keys", "--export-secret-subkeys", "-d", "--decrypt", "--export-ssh-key", "--import", "--delete-secret-keys", "--gen-key", "--full-generate-key", "--quick-gen-key") {
		return v(Credential, "reads, decrypts or changes secret keys"), nil
	}
	if hasAny(argv[1:], "--recv-keys", "--send-keys", "--search-keys", "--refresh-keys") {
		return v(Network, "talks to a key server"), nil
	}
	return v(Use, "signs, verifies or lists keys"), nil
}

var systemctlRead = sync.OnceValue(func() map[string]bool {
	return set(strings.Fields(`status is-active is-enabled is-failed is-system-running list-units list-unit-files
	list-timers list-sockets list-dependencies list-jobs list-machines show cat help get-default show-environment --version`)...)
})

func systemctl(_ *state, argv []string, _ int) (verdict, []Classification) {
	rest := skipOpts(argv[1:], set("-H", "--host", "-M", "--machine", "-t", "--type", "-p", "--property", "-n", "--lines", "-o", "--output", "--state"))
	switch sub := first(rest); {
	case sub == "" || systemctlRead()[sub]:
		return v(Observe, "reads service state"), nil
	case sub == "poweroff" || sub == "reboot" || sub == "halt" || sub == "kexec" || sub == "rescue" || sub == "emergency" || sub == "soft-reboot":
		return v(Critical, "stops or restarts the machine"), nil
	}
	return v(ServiceControl, serviceReason), nil
}

func service(_ *state, argv []string, _ int) (verdict, []Classification) {
	ops := operands(argv[1:], nil)
	if len(ops) < 2 || ops[1] == "status" || hasAny(argv[1:], "--status-all") {
		return v(Observe, "reads service state"), nil
	}
	return v(ServiceControl, serviceReason), nil
}

// containers judges docker-like CLIs. The daemon runs as root, so running a
// container or a command in one is privilege (a bind mount of / is root on
// the host); lifecycle verbs are service control; reading is observe.
func containers(name string) handler {
	sc := subcommands{subs: subs(
		subGroup{"ps images logs inspect version info stats top history port diff events search", v(Observe, "reads container state")},
		subGroup{"run exec create cp commit attach debug plugin", v(Privilege, "runs or enters a container through a root daemon")},
		subGroup{"start stop restart rm rmi kill pause unpause build buildx tag update rename prune wait load import save export", v(ServiceControl, "changes containers or images")},
		subGroup{"pull push", v(Network, "transfers images with a registry")},
		subGroup{"login logout", v(Credential, "stores a registry credential")},
	), globalArg: set("-H", "--host", "--context", "-c", "--config", "-l", "--log-level"), none: observeInfo,
		other: v(Unknown, "not a "+name+" command this table knows")}
	return func(s *state, argv []string, depth int) (verdict, []Classification) {
		rest := skipOpts(argv[1:], sc.globalArg)
		switch first(rest) {
		case "compose":
			return compose(s, append([]string{"compose"}, rest[1:]...), depth)
		case "container", "image", "volume", "network", "system", "context", "buildx", "builder", "secret", "config", "node", "service", "stack", "swarm", "manifest", "trust":
			return containerGroup(sc, rest), nil
		}
		return sc.judge(argv[1:]), nil
	}
}

// containerGroup is "docker container ls" and friends: the second word
// decides.
func containerGroup(sc subcommands, rest []string) verdict {
	sub := first(rest[1:])
	switch sub {
	case "ls", "list", "inspect", "show", "":
		return v(Observe, "reads container state")
	}
	if rest[0] == "secret" {
		return v(Credential, "manages container secrets")
	}
	if vd, ok := sc.subs[sub]; ok {
		return vd
	}
	return v(ServiceControl, "changes containers, images, volumes or networks")
}

func compose(_ *state, argv []string, _ int) (verdict, []Classification) {
	rest := skipOpts(argv[1:], set("-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory"))
	switch first(rest) {
	case "", "ps", "logs", "config", "ls", "images", "top", "version", "port", "events":
		return v(Observe, "reads container state"), nil
	case "run", "exec", "cp":
		return v(Privilege, "runs or enters a container through a root daemon"), nil
	case "pull", "push":
		return v(Network, "transfers images with a registry"), nil
	}
	return v(ServiceControl, "starts, stops or rebuilds services"), nil
}

// kubectl: reading is observe (reading secrets is credential), changing
// objects is service control, running in a pod is privilege.
func kubectl(_ *state, argv []string, _ int) (verdict, []Classification) {
	ops := operands(argv[1:], set("-n", "--namespace", "--context", "--cluster", "--kubeconfig", "-s", "--server",
		"--user", "--token", "-o", "--output", "-l", "--selector", "-c", "--container", "-f", "--filename", "--field-selector", "--since", "--tail"))
	sub := first(ops)
	switch sub {
	case "get", "describe":
		for _, o := range ops[1:] {
			if strings.HasPrefix(o, "secret") {
				return v(Credential, "reads cluster secrets"), nil
			}
		}
		return v(Observe, "reads cluster state"), nil
	case "", "logs", "top", "explain", "version", "api-resources", "api-versions", "cluster-info", "auth", "wait", "events", "diff":
		return v(Observe, "reads cluster state"), nil
	case "config":
		if hasAny(argv[1:], "--raw") {
			return v(Credential, "prints cluster credentials"), nil
		}
		if o := first(ops[1:]); o == "view" || o == "get-contexts" || o == "current-context" || o == "get-clusters" {
			return v(Observe, "reads client configuration"), nil
		}
		return v(Modify, "changes client configuration"), nil
	case "exec", "run", "cp", "attach", "debug", "port-forward", "proxy":
		return v(Privilege, "runs commands or opens channels inside the cluster"), nil
	}
	return v(ServiceControl, "changes cluster objects"), nil
}

func mount(_ *state, argv []string, _ int) (verdict, []Classification) {
	if len(argv) == 1 || hasAny(argv[1:], "-l", "--list") {
		return v(Observe, "lists mounts"), nil
	}
	return v(Privilege, privReason), nil
}

func sysctl(_ *state, argv []string, _ int) (verdict, []Classification) {
	if hasAny(argv[1:], "-w", "--write", "-p", "--load", "--system") {
		return v(Privilege, "changes kernel parameters"), nil
	}
	for _, a := range argv[1:] {
		if strings.Contains(a, "=") {
			return v(Privilege, "changes kernel parameters"), nil
		}
	}
	return v(Observe, "reads kernel parameters"), nil
}

func ipTool(_ *state, argv []string, _ int) (verdict, []Classification) {
	for _, a := range argv[1:] {
		switch a {
		case "add", "del", "delete", "set", "change", "replace", "flush", "exec", "append", "prepend":
			return v(Privilege, "changes the machine's network configuration"), nil
		}
	}
	return v(Observe, "reads network configuration"), nil
}

func ifconfig(_ *state, argv []string, _ int) (verdict, []Classification) {
	if len(argv) <= 2 || hasAny(argv[1:], "-a", "-s") && len(argv) == 2 {
		return v(Observe, "reads network configuration"), nil
	}
	return v(Privilege, "changes the machine's network configuration"), nil
}

func hostname(_ *state, argv []string, _ int) (verdict, []Classification) {
	if len(operands(argv[1:], nil)) > 0 || hasAny(argv[1:], "-F", "--file", "-b", "--boot") {
		return v(Privilege, "changes the machine's name"), nil
	}
	return observeInfo, nil
}

func initCmd(_ *state, argv []string, _ int) (verdict, []Classification) {
	switch first(argv[1:]) {
	case "0", "6", "1", "s", "S":
		return v(Critical, "stops or restarts the machine"), nil
	case "", "--version", "--help":
		return observeInfo, nil
	}
	return v(Privilege, privReason), nil
}

// kill signals processes (modify: the sandbox's pid namespace bounds
// which); a target of -1 signals every process the caller may signal.
func kill(_ *state, argv []string, _ int) (verdict, []Classification) {
	args := argv[1:]
	if hasAny(args, "-l", "-L", "--list", "--table") {
		return v(Observe, "lists signals"), nil
	}
	i := 0
	if i < len(args) && (args[i] == "-s" || args[i] == "-n" || args[i] == "--signal") {
		i += 2
	} else if len(args) > 1 && strings.HasPrefix(args[0], "-") && args[0] != "--" {
		i++ // the signal: -9, -KILL, -SIGTERM, even -1 (SIGHUP) when a target follows
	}
	for ; i < len(args); i++ {
		if args[i] == "-1" {
			return v(Critical, "signals every process the caller can reach"), nil
		}
	}
	return v(Modify, "signals processes"), nil
}
