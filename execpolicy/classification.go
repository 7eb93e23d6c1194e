package execpolicy

// Classification is one classified command and why it was classified so.
// A command that hides others (a shell string, a pipeline, a wrapper such as
// sudo) carries each of them in Parts, and its own Capability, Outcome,
// Program and Reason are those of its riskiest part.
type Classification struct {
	Capability Capability `json:"capability"`
	Outcome    Outcome    `json:"outcome"`
	// Program is the program the decision was made about, after unwrapping.
	Program string `json:"program"`
	// Reason says why, in terms a person approving the command can check.
	Reason string `json:"reason"`
	// Parts are the commands found inside, already classified.
	Parts []Classification `json:"parts,omitempty"`
}

// riskier reports whether a is riskier than b: the more severe outcome
// first, then the higher capability. Ties keep the earlier part.
func riskier(a, b Classification) bool {
	if a.Outcome != b.Outcome {
		return a.Outcome > b.Outcome
	}
	return a.Capability > b.Capability
}

// aggregate makes one classification out of several: the riskiest part's
// verdict, with every part kept. One part stands for itself.
func aggregate(parts []Classification) Classification {
	switch len(parts) {
	case 0:
		return Classification{Capability: Unknown, Outcome: AskApproval, Reason: "nothing to classify"}
	case 1:
		return parts[0]
	}
	top := parts[0]
	for _, p := range parts[1:] {
		if riskier(p, top) {
			top = p
		}
	}
	return Classification{
		Capability: top.Capability,
		Outcome:    top.Outcome,
		Program:    top.Program,
		Reason:     top.Reason,
		Parts:      parts,
	}
}

// Riskiest returns the riskiest classification in c's tree (c itself when
// it has no parts). It is what c's own verdict must equal.
func (c Classification) Riskiest() Classification {
	if len(c.Parts) == 0 {
		return c
	}
	top := c.Parts[0].Riskiest()
	for _, p := range c.Parts[1:] {
		if r := p.Riskiest(); riskier(r, top) {
			top = r
		}
	}
	top.Parts = nil
	return top
}
