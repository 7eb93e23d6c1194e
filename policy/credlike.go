package policy

// CredentialName reports whether a variable's name looks like it holds a
// credential: the name test ClassifyEnv applies (TOKEN, SECRET, AUTH, a
// KEY or PASS part, AWS_…). For callers that must never show such a
// variable, whatever their own allow-list says (a server's /v1/metadata).
func CredentialName(name string) bool { return credentialName(name) }

// CredentialValue reports whether a value looks like a credential: the
// value test ClassifyEnv applies (URL userinfo, a known token format, a
// PEM block, an AWS access key id).
func CredentialValue(value string) bool { return credentialValue(value) }
