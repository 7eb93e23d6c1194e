package probe

// LinuxTrial is the linux backend's own trial (its init started in the
// namespaces, building a view and setting its host name) and the steps it
// leaves out here (a container's masked /proc, a refused sethostname),
// each named as every run's enforcement reasons name it.
type LinuxTrial struct {
	Available bool     `json:"available"`
	Reason    string   `json:"reason,omitempty"`
	NotTaken  []string `json:"stepsNotTaken,omitempty"`
	// HostProc: views show the container's /proc (no fresh one).
	HostProc bool `json:"hostProc,omitempty"`
}

func linuxFact(s Sources, r Report) LinuxTrial {
	if s.Linux == nil {
		// No trial of its own (a simulated host): the backend stands or
		// falls with user namespaces.
		if !r.UserNS.Available {
			return LinuxTrial{Reason: "user namespaces unavailable"}
		}
		return LinuxTrial{Available: true}
	}
	d, err := s.Linux()
	if err != nil {
		return LinuxTrial{Reason: err.Error()}
	}
	return LinuxTrial{Available: true, NotTaken: d.Reasons(), HostProc: d.HostProc}
}
