package execpolicy

import (
	"encoding/json"
	"testing"
)

func TestTextRoundTrip(t *testing.T) {
	for i := range numCapabilities {
		c := Capability(i)
		b, err := c.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Capability
		if err := back.UnmarshalText(b); err != nil || back != c || string(b) != c.String() {
			t.Errorf("%d: %q → %v (%v)", i, b, back, err)
		}
	}
	for i := range len(outcomeNames) {
		o := Outcome(i)
		b, err := o.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Outcome
		if err := back.UnmarshalText(b); err != nil || back != o {
			t.Errorf("%d: %q → %v (%v)", i, b, back, err)
		}
	}
	var c Capability
	var o Outcome
	if c.UnmarshalText([]byte("Observe")) == nil || o.UnmarshalText([]byte("ask")) == nil {
		t.Error("names are exact: Observe and ask must be refused")
	}
	if _, err := Capability(99).MarshalText(); err == nil {
		t.Error("an out-of-range capability marshalled")
	}
	if _, err := Outcome(-1).MarshalText(); err == nil {
		t.Error("an out-of-range outcome marshalled")
	}
	want := []string{"observe", "use", "modify", "network", "service-control", "package-install", "privilege", "credential", "critical", "unknown"}
	for i, n := range want {
		if Capability(i).String() != n {
			t.Errorf("capability %d is %q, want %q", i, Capability(i), n)
		}
	}
}

func TestClassificationJSON(t *testing.T) {
	b, err := json.Marshal(Classify([]string{"ls"}))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"capability":"observe","outcome":"allow","program":"ls","reason":"reads files or prints information"}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
	var back Classification
	full := Classify([]string{"bash", "-c", "ls | curl x"})
	b, _ = json.Marshal(full)
	if err := json.Unmarshal(b, &back); err != nil || back.Capability != Network || len(back.Parts) != 2 {
		t.Errorf("round trip: %+v %v", back, err)
	}
}

func TestRiskierOrder(t *testing.T) {
	unknownAsk := Classification{Capability: Unknown, Outcome: AskApproval}
	critDeny := Classification{Capability: Critical, Outcome: Deny}
	credAsk := Classification{Capability: Credential, Outcome: AskApproval}
	modScoped := Classification{Capability: Modify, Outcome: AllowScoped}
	// Outcome first: a deny beats an unknown ask.
	if got := aggregate([]Classification{unknownAsk, critDeny}); got.Capability != Critical {
		t.Errorf("got %s", got.Capability)
	}
	// Same outcome: the higher capability.
	if got := aggregate([]Classification{credAsk, unknownAsk}); got.Capability != Unknown {
		t.Errorf("got %s", got.Capability)
	}
	// A deployment that denies modify makes it riskier than network's ask.
	modDeny := Classification{Capability: Modify, Outcome: Deny}
	if got := aggregate([]Classification{{Capability: Network, Outcome: AskApproval}, modDeny}); got.Capability != Modify {
		t.Errorf("got %s", got.Capability)
	}
	if got := aggregate([]Classification{modScoped}); got.Parts != nil {
		t.Error("a single part must stand for itself")
	}
	if got := aggregate(nil); got.Capability != Unknown || got.Outcome != AskApproval {
		t.Errorf("empty aggregate = %+v", got)
	}
}
