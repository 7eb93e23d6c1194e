package confine_test

import (
	"errors"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
)

// TestTraitsOf: the traits are the selected backend's own, and nothing is
// claimed when no backend is usable (fail closed: never the strongest).
func TestTraitsOf(t *testing.T) {
	strong := &fake{name: "linux"}
	weak := &fake{name: "landlock"}
	down := &fake{name: "linux", avail: errors.New("no userns")}
	tests := []struct {
		name string
		p    confine.Provider
		want confine.Traits
	}{
		{"nil provider", nil, confine.Traits{}},
		{"single", strong, confine.Traits{Namespaces: true, Scratch: "of linux"}},
		{"auto picks the first usable", confine.Auto(down, weak), confine.Traits{Scratch: "of landlock"}},
		{"auto, strongest usable", confine.Auto(strong, weak), confine.Traits{Namespaces: true, Scratch: "of linux"}},
		{"none usable", confine.Auto(down), confine.Traits{}},
		{"a named unusable provider", down, confine.Traits{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := confine.TraitsOf(tt.p); got != tt.want {
				t.Fatalf("TraitsOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}
