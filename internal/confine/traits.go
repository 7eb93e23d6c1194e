package confine

// Traits are what a backend isolates besides the file effects and network
// mode it reports per command (Enforcement), as the backend itself declares
// them. The facade answers Isolation, whether sessions exist and what
// becomes of /tmp from them, never by comparing backend names. The zero
// Traits claims nothing: a backend that declared nothing is reported as
// isolating nothing more (fail closed), never as the strongest.
type Traits struct {
	// Namespaces: every command runs in its own pid namespace, and (unless
	// the network is allow-all) its own network namespace, so it cannot see
	// or signal host processes and the network mode holds for every
	// program, cooperating or not.
	Namespaces bool
	// Sessions is how this backend serves a long-lived session.
	Sessions Sessions
	// Scratch is what becomes of a write to /tmp outside $TMPDIR.
	Scratch Scratch
}

// Sessions is how a backend serves a session.
type Sessions string

// Session kinds.
const (
	SessionsNone Sessions = ""         // no sessions (ErrSessionUnsupported)
	SessionsInit Sessions = "init"     // one init serves every process (Request.Session)
	SessionsRuns Sessions = "one-shot" // each process is its own confined run
)

// Scratch is what becomes of writes to /tmp (outside $TMPDIR) and /dev/shm.
type Scratch string

// Scratch kinds.
const (
	// ScratchHost: the host's own /tmp (no mount namespace). The zero value.
	ScratchHost Scratch = ""
	// ScratchPrivate: a private tmpfs thrown away when the command ends,
	// read-only unless the policy's mode is workspace-write.
	ScratchPrivate Scratch = "private"
	// ScratchPrivateWritable: a private tmpfs thrown away when the command
	// ends, writable in every mode.
	ScratchPrivateWritable Scratch = "private-writable"
)

// TraitsOf is what p's selected backend declares: for the auto chain the
// first usable backend's, and zero (nothing claimed) when none is usable.
func TraitsOf(p Provider) Traits {
	if p == nil {
		return Traits{}
	}
	s, err := Selected(p)
	if err != nil {
		return Traits{}
	}
	return s.Traits()
}
