#!/bin/sh
# bench/fleet.sh — the fleet load run of `ringfence serve` (issue 17): N
# server processes on loopback (default 4), C concurrent clients each
# (default 32), for D (default 3m), mixed calls — Execute (stdout, stderr
# and exit code checked), Start with stdin (random bytes echoed by cat),
# REST PUT, GET, a confined sha256sum of the upload, a listing, DELETE and
# a 404 — every result checked; then each server is checked for leaked
# processes, descriptors, temp dirs and mounts, after the run and after
# its shutdown. Prints p50/p99 per call beside a same-run local Exec, as a
# Markdown table; exits 1 on any wrong result or leak.
#
# Needs: go, user namespaces (the linux backend). Loopback only.
#   SERVERS=4 CLIENTS=32 DURATION=3m bench/fleet.sh
set -eu
command -v go >/dev/null 2>&1 || { echo "bench/fleet.sh: missing: go" >&2; exit 2; }
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM
CGO_ENABLED=0 go build -o "$out/ringfence" ./cmd/ringfence
go build -o "$out/fleet" ./bench/fleet
"$out/fleet" -ringfence "$out/ringfence" -servers "${SERVERS:-4}" -clients "${CLIENTS:-32}" -duration "${DURATION:-3m}"
