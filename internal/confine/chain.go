package confine

import (
	"errors"
	"fmt"

	"github.com/ringfence/ringfence/policy"
)

// AutoName is the name of the chain that picks the first usable backend.
const AutoName = "auto"

// Auto returns a Provider that confines with the first of providers whose
// Available reports nil, in the order given (strongest first). When none is
// usable, Confine fails with *UnavailableError naming every backend tried
// and why; it never falls through to running the argv unconfined.
func Auto(providers ...Provider) Provider {
	return &chain{providers: providers}
}

// Select resolves a --backend name. "auto" (or "") is Auto(providers...).
// Any other name must match one provider's Name(): that provider is used
// alone, and if it is unavailable here the error is the same typed
// *UnavailableError Auto reports, never a silent fallback to another. An
// unknown name is a policy error.
func Select(name string, providers ...Provider) (Provider, error) {
	if name == "" || name == AutoName {
		return Auto(providers...), nil
	}
	for _, p := range providers {
		if p.Name() != name {
			continue
		}
		named := &chain{name: name, providers: []Provider{p}}
		if err := named.Available(); err != nil {
			return nil, err
		}
		return named, nil
	}
	return nil, fmt.Errorf("%w: unknown sandbox backend %q", policy.ErrPolicy, name)
}

// chain tries providers in order; name is "auto" unless a single backend
// was named, in which case the chain reports that backend's name.
type chain struct {
	name      string
	providers []Provider
}

func (c *chain) Name() string {
	if c.name != "" {
		return c.name
	}
	return AutoName
}

// Traits are the first usable provider's; zero (nothing claimed) when none is.
func (c *chain) Traits() Traits {
	p, err := c.pick()
	if err != nil {
		return Traits{}
	}
	return p.Traits()
}

// Available is nil when some provider is usable, else *UnavailableError.
func (c *chain) Available() error {
	_, err := c.pick()
	return err
}

// Confine refuses danger-full-access (the caller runs that knowingly),
// then delegates to the first usable provider. A provider that returns
// neither a Cmd nor an error is treated as unavailable rather than trusted.
func (c *chain) Confine(req Request) (*Cmd, error) {
	if req.Policy == nil {
		return nil, fmt.Errorf("%w: no policy to confine with", policy.ErrPolicy)
	}
	if !req.Policy.Confining() {
		return nil, ErrNotConfining
	}
	p, err := c.pick()
	if err != nil {
		return nil, err
	}
	cmd, err := p.Confine(req)
	if err != nil {
		return nil, err
	}
	if cmd == nil {
		return nil, &UnavailableError{Tried: []string{p.Name()}, Reasons: []string{"returned no command"}}
	}
	return cmd, nil
}

// pick returns the first available provider, or the typed error listing
// every provider tried and its reason.
func (c *chain) pick() (Provider, error) {
	u := &UnavailableError{}
	for _, p := range c.providers {
		err := p.Available()
		if err == nil {
			return p, nil
		}
		u.Tried = append(u.Tried, p.Name())
		u.Reasons = append(u.Reasons, reason(err))
	}
	if len(u.Tried) == 0 {
		u.Tried, u.Reasons = []string{c.Name()}, []string{"no backend is built for this platform"}
	}
	return nil, u
}

// reason flattens a provider's error, unwrapping a nested UnavailableError
// so its own list is not quoted twice.
func reason(err error) string {
	var u *UnavailableError
	if errors.As(err, &u) && len(u.Reasons) == 1 {
		return u.Reasons[0]
	}
	return err.Error()
}

// Selected is the backend p confines with on this host: for the auto chain
// the first usable one, for any other provider itself. The error says why
// none is usable.
func Selected(p Provider) (Provider, error) {
	if c, ok := p.(*chain); ok {
		return c.pick()
	}
	return p, p.Available()
}
