// Package netrule is the decision half of internal/netproxy: network rules
// (ParseRule, ParseRules, Rules.Decide, Rules.CheckResolved), destinations
// (ParseAuthority, ParseHost, Target), the refusal of private addresses
// (Private), the sandbox's fake DNS (FakeTable, AnswerDNS), the listener
// ports and proxy environment, and the handoff header and Send that carry
// an accepted connection to the supervisor. netproxy's package doc states
// what each decides and why; netproxy re-exports every name here, so its
// users are unchanged.
//
// It exists so that the sandbox init does not link net/http. The init
// needs these (policy parses rules; the in-namespace listeners answer DNS
// and hand connections over) but never the proxy, and everything the init
// links is carried in every ringfence binary and copied into a memfd on
// every run (internal/confine/initimage, whose tests refuse an init that
// links net/http, crypto/tls or the like again). Keep this package free of
// net/http and of anything that pulls it in.
//
// # Threat model
//
// As netproxy's: rules and destinations are parsed strictly and fuzzed
// (FuzzParseRule, FuzzParseAuthority, FuzzAnswerDNS, FuzzDecodeHandoff);
// a parse failure refuses.
package netrule
