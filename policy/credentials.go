package policy

import "path"

// CredentialNames are the places under a user's home where tools keep
// secrets: keys, tokens and passwords that a confined command has no
// business reading (it could print them into a model's context, or send
// them wherever the network lets it). The agent profile denies each one
// that exists; a person who wants a command to use one grants it
// explicitly (--read-only / a policy entry), knowingly. Package managers'
// own configuration (~/.npmrc, ~/.yarnrc.yml) is left readable: tools
// read it on every run and a refusal breaks them, though it may hold a
// registry token.
var CredentialNames = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker/config.json",
	".config/gcloud", ".config/gh", ".config/hub", ".git-credentials", ".netrc",
	".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
	".gem/credentials", ".m2/settings-security.xml", ".terraform.d/credentials.tfrc.json",
	".vault-token", ".password-store", ".local/share/keyrings", ".config/op",
}

// CredentialEntries are deny entries for the credential places under home
// that exist (exists is the caller's file-system check; this package
// touches none). An empty or root home yields none.
func CredentialEntries(home string, exists func(string) bool) []Entry {
	if !path.IsAbs(home) || Clean(home) == "/" {
		return nil
	}
	var out []Entry
	for _, n := range CredentialNames {
		p := Clean(home + "/" + n)
		if exists(p) {
			out = append(out, Entry{Path: p, Access: Deny})
		}
	}
	return out
}
