#!/bin/sh
# bench/sessions.sh — the cost of a command in a session, side by side, in
# one run (issue 15): Session.Start+Wait of /bin/true against a bare os/exec
# of /bin/true and a one-shot Exec; run_command of true through the tool
# layer and through the real MCP transport (stdio) in a warm session, and
# one-shot for comparison; and a session's start cost and idle footprint.
#
# Needs: go. Prints each benchmark's mean (ns/op) and median (p50-ns), and
# the ratio of the session's median to bare exec's. N (default 1000) is the
# iterations per benchmark. Run as root or not; needs user namespaces.
set -eu
command -v go >/dev/null 2>&1 || { echo "bench/sessions.sh: missing: go" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
n=${N:-1000}
out=$(mktemp)
trap 'rm -f "$out"' EXIT INT TERM
go test -run XXX -bench '^(BenchmarkSessionTrue|BenchmarkBareExecTrue)$' -benchtime "${n}x" . | tee "$out"
go test -run XXX -bench '^BenchmarkOneShotTrue$' -benchtime 100x . | tee -a "$out"
go test -run XXX -bench '^BenchmarkRunCommandSessionTrue$' -benchtime "${n}x" ./tools | tee -a "$out"
go test -run XXX -bench '^BenchmarkMCPRunCommandSessionTrue$' -benchtime "${n}x" ./internal/mcp | tee -a "$out"
go test -run XXX -bench '^BenchmarkMCPRunCommandOneShotTrue$' -benchtime 100x ./internal/mcp | tee -a "$out"
go test -count=1 -run '^TestSessionFootprint$' -v . | grep -E 'session (start|idle)' || true
awk '/^BenchmarkSessionTrue/ {s=$5} /^BenchmarkBareExecTrue/ {b=$5}
	/^BenchmarkMCPRunCommandSessionTrue/ {m=$5}
	END { if (s && b) printf "session p50 / bare exec p50 = %.2f (target <= 1.5)\n", s/b
	      if (m) printf "MCP run_command p50 in a warm session = %.2f ms (target <= 5)\n", m/1e6 }' "$out"
