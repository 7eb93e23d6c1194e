package main

import "strings"

// loopbackByDefault is the address --http listens on: a port alone
// ("8080") or an address without a host (":8080") is 127.0.0.1 — the
// server binds loopback unless a host is named. (Go's own ":8080" means
// every interface; a person who types a port means this machine, and
// every interface takes naming 0.0.0.0 and a --token-file.)
func loopbackByDefault(addr string) string {
	if strings.HasPrefix(addr, unixPrefix) {
		return addr
	}
	if strings.HasPrefix(addr, ":") {
		return "127.0.0.1" + addr
	}
	if addr != "" && strings.Trim(addr, "0123456789") == "" {
		return "127.0.0.1:" + addr
	}
	return addr
}
