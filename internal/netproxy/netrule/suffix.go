package netrule

import (
	"slices"
	"strings"
)

// publicSuffixes are multi-label suffixes under which anyone can register
// a name (a curated subset of the Public Suffix List: country second
// levels and the large shared hosting suffixes). A wildcard over one of
// them, or over any single label (*.com, *.io), is refused. The list is
// deliberately not the whole PSL (no dependency, no stale copy to ship):
// a suffix missing here is accepted, so the check stops the common
// mistakes, not every one; the rule is still shown to the user who set it.
var publicSuffixes = map[string]bool{
	"co.uk": true, "org.uk": true, "ac.uk": true, "gov.uk": true, "me.uk": true, "ltd.uk": true, "plc.uk": true,
	"com.au": true, "net.au": true, "org.au": true, "edu.au": true, "gov.au": true,
	"co.nz": true, "org.nz": true, "co.jp": true, "ne.jp": true, "or.jp": true, "ac.jp": true,
	"co.kr": true, "or.kr": true, "com.cn": true, "net.cn": true, "org.cn": true, "com.hk": true,
	"com.tw": true, "com.sg": true, "com.my": true, "co.in": true, "net.in": true, "org.in": true,
	"co.za": true, "com.br": true, "net.br": true, "org.br": true, "com.ar": true, "com.mx": true,
	"co.il": true, "com.tr": true, "com.ru": true, "com.ua": true, "co.id": true, "com.pl": true,
	"com.es": true, "co.it": true, "com.vn": true, "com.ph": true, "com.pk": true, "com.ng": true,
	"com.eg": true, "com.sa": true, "ac.in": true, "edu.cn": true,
	// Shared hosting: every customer gets a subdomain.
	"github.io": true, "githubusercontent.com": true, "gitlab.io": true, "pages.dev": true,
	"workers.dev": true, "vercel.app": true, "netlify.app": true, "herokuapp.com": true,
	"appspot.com": true, "web.app": true, "firebaseapp.com": true, "azurewebsites.net": true,
	"cloudfront.net": true, "amazonaws.com": true, "s3.amazonaws.com": true, "blob.core.windows.net": true,
	"ngrok.io": true, "ngrok-free.app": true, "trycloudflare.com": true, "repl.co": true,
	"glitch.me": true, "onrender.com": true, "fly.dev": true, "railway.app": true,
}

// overBroad says why "*."+suffix allows too much, or "".
func overBroad(suffix string) string {
	if !strings.Contains(suffix, ".") {
		return "a wildcard over a top-level domain (*." + suffix + ") allows most of the internet; name the sites"
	}
	if publicSuffixes[suffix] {
		return "*." + suffix + " covers names anyone can register; name the sites"
	}
	return ""
}

// Presets are named lists for common registries, expanded where a rule
// list says "@name". Each lists the hosts its tool's documentation says it
// fetches from (downloads often redirect to a separate storage host).
var Presets = map[string][]string{
	"go":       {"proxy.golang.org", "sum.golang.org", "index.golang.org", "storage.googleapis.com"},
	"npm":      {"registry.npmjs.org", "registry.yarnpkg.com"},
	"pypi":     {"pypi.org", "files.pythonhosted.org"},
	"crates":   {"crates.io", "index.crates.io", "static.crates.io"},
	"github":   {"github.com", "api.github.com", "codeload.github.com", "objects.githubusercontent.com", "raw.githubusercontent.com"},
	"gitlab":   {"gitlab.com", "registry.gitlab.com"},
	"rubygems": {"rubygems.org", "index.rubygems.org"},
	"maven":    {"repo.maven.apache.org", "repo1.maven.org", "plugins.gradle.org", "services.gradle.org"},
	"docker":   {"registry-1.docker.io", "auth.docker.io", "production.cloudflare.docker.com"},
	"debian":   {"deb.debian.org", "security.debian.org"},
}

func presetNames() string {
	var names []string
	for n := range Presets {
		names = append(names, "@"+n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
