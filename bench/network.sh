#!/bin/sh
# bench/network.sh — the domains network's cost, side by side, in one run.
#
# Builds a test internet (two network namespaces joined by a veth pair,
# hosts on 198.51.100.0/24) and measures one Python client both ways:
# direct from the egress namespace (no sandbox), and inside a sandbox under
# --network domains through its HTTP proxy, for the linux backend and then
# the bwrap backend (when bwrap is installed). Prints the added latency per
# connection (connect + first byte, median and p90 of fresh connections),
# the throughput of a download over HTTP and over TLS (1 GiB by default),
# in rounds that alternate the two paths: each path's best round and the
# median of the rounds' own ratios, and the supervisor's heap around the
# proxied downloads.
#
# Needs: root (ip netns), go, python3, iproute2; bwrap for its half.
# NET_BENCH_CONNS (default 200), NET_BENCH_BYTES (default 1073741824) and
# NET_BENCH_ROUNDS (default 3) tune it.
set -eu

missing=""
for tool in go python3 ip; do
	command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	echo "bench/network.sh: missing:$missing (e.g. apt-get install -y iproute2 python3)" >&2
	exit 2
fi
if [ "$(id -u)" != 0 ]; then
	echo "bench/network.sh: needs root to make the test internet's network namespaces" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
pkgs=./internal/confine/linux
command -v bwrap >/dev/null 2>&1 && pkgs="$pkgs ./internal/confine/bwrap"
for pkg in $pkgs; do
	RINGFENCE_NET_BENCH=1 go test "$pkg" -run '^TestDomainsBenchmark$' -count=1 -v 2>&1 |
		grep -E '^(network benchmark|  )|FAIL|^ok'
done
