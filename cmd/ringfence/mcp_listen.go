package main

import "strings"

// loopbackByDefault is the address --http listens on: a port alone
// ("8080") is 127.0.0.1:8080 — the server binds loopback unless an
// address is named. ":8080" keeps Go's meaning (every interface), so it
// is refused without --token-file like 0.0.0.0:8080, never silently
// narrowed or widened.
func loopbackByDefault(addr string) string {
	if addr != "" && strings.Trim(addr, "0123456789") == "" {
		return "127.0.0.1:" + addr
	}
	return addr
}
