package confine

// Home is the private copy-on-write layer over the user's home directory
// a backend with a mount namespace shows in place of the read-only home:
// reads see the real files (the policy's denied entries still masked),
// writes land in Upper and never reach Dir. The caller (the facade) makes
// Upper and Work, on one filesystem, under ringfence's own state directory
// (see internal/homestate), and names that directory in Hide so no command
// can read or write another run's layer except through its own overlay.
type Home struct {
	Dir   string   // the host home directory: absolute, clean
	Upper string   // overlay upper directory (host path)
	Work  string   // overlay work directory (host path, same filesystem)
	Hide  []string // host paths masked in the view: ringfence's state directory
	// Cache is a private writable directory the landlock backend (no mount
	// namespace, so no overlay) points the toolchain cache variables at.
	Cache string
}
