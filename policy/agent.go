package policy

// AgentDefaults is the profile ringfence is for, defined once: the workspace
// (and a private temp dir) writable, the rest of the host readable with the
// protected subpaths read-only, and no network at all. The CLI starts from
// it, a zero ringfence.Config gets it, and the conformance suite runs it.
// Root and TempDir are left for the caller; every call returns a fresh
// value, so changing one does not change the next.
func AgentDefaults() Defaults {
	return Defaults{
		Mode:     WorkspaceWrite,
		Baseline: Read,
		Network:  Network{Mode: NetDeny},
		// A fork bomb ends as over-budget, not by starving the machine.
		Limits: Limits{Processes: DefaultProcesses},
	}
}

// AgentProfile is the agent profile for a host: AgentDefaults plus deny
// entries for the credential places under home that exist
// (CredentialEntries; exists is the caller's file-system check). It is
// what a zero ringfence.Config and the CLI's built-in defaults both get, so
// neither spells the profile out. An empty home adds no entries.
func AgentProfile(home string, exists func(string) bool) Defaults {
	d := AgentDefaults()
	d.Entries = CredentialEntries(home, exists)
	return d
}

// AllowList is the agent profile over an allow-list baseline: nothing on
// the host is readable but entries (and the writable roots). It is the
// explicit way to ask for a Deny baseline: a Defaults that sets nothing
// else is zero, and a zero Defaults means the agent profile to a facade
// (see IsZero), so Defaults{Baseline: Deny} alone would not say it.
func AllowList(entries ...Entry) Defaults {
	d := AgentDefaults()
	d.Baseline = Deny
	d.Entries = append([]Entry(nil), entries...)
	return d
}

// IsZero reports whether d sets nothing at all: no field differs from its
// zero value. A zero Defaults is the one value a caller cannot have meant
// literally (read-only over an allow-list that lists nothing), so a facade
// may read it as "the default profile".
func (d *Defaults) IsZero() bool {
	return d.Mode == 0 && d.Root == "" && d.TempDir == "" && d.Baseline == 0 &&
		d.Entries == nil && d.Network.Mode == 0 && d.Network.Domains == nil &&
		d.Network.Deny == nil && d.Network.Reasons == nil && !d.Network.Ask &&
		d.Limits == (Limits{}) && d.ProtectGit == GitDefault && d.ExtraProtected == nil &&
		!d.AllowAliasedWrites && d.UnixSockets == nil && d.ReadFile == nil && d.Now == nil &&
		d.Restrictions == nil && d.ExtraProtectedNames == nil
}
