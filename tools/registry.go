package tools

import (
	"context"
	"encoding/json"
	"reflect"
)

// tool is one entry of the registry. Adding a tool is one new file that
// defines a spec[A] (its name, description, schema, permissions and call)
// and registers a constructor from its init function:
//
//	func init() { register(func(s *Set) tool { return &spec[myArgs]{…} }) }
//
// Decoding, bounds, permissions-before-call, narration, scrubbing and the
// audit fields common to every call are done once, here and in tools.go.
type tool interface {
	name() string
	definition() Definition
	decode(args json.RawMessage) (any, error)
	permissions(args any) ([]string, error)
	call(ctx context.Context, args any) Result
}

// registry holds a constructor per tool; New builds each for its Set.
var registry []func(*Set) tool

func register(mk func(*Set) tool) { registry = append(registry, mk) }

// spec is a tool over its own argument type A. schema is the single source
// of truth for the argument names, the required ones and their bounds: the
// decoder enforces exactly what the definition advertises.
type spec[A any] struct {
	set   *Set
	tname string
	title string // a short human name, for a client's list of tools
	desc  string
	hints Hints
	// data is the type of Result.Data on success (see dataType).
	data   reflect.Type
	schema object
	// check validates what a schema cannot say (one of two fields).
	check func(*A) error
	perms func(*A) ([]string, error)
	run   func(context.Context, *A) Result
}

func (t *spec[A]) name() string { return t.tname }

func (t *spec[A]) definition() Definition {
	raw, err := json.Marshal(t.schema)
	if err != nil {
		panic("tools: schema of " + t.tname + " does not marshal: " + err.Error())
	}
	return Definition{Name: t.tname, Title: t.title, Description: t.desc, InputSchema: raw, Hints: t.hints, Data: t.data}
}

func (t *spec[A]) decode(raw json.RawMessage) (any, error) {
	a := new(A)
	if err := decodeArgs(raw, t.schema, t.set.opts.MaxArgBytes, a); err != nil {
		return nil, err
	}
	if t.check != nil {
		if err := t.check(a); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func (t *spec[A]) permissions(a any) ([]string, error) { return t.perms(a.(*A)) }

func (t *spec[A]) call(ctx context.Context, a any) Result { return t.run(ctx, a.(*A)) }
