#!/bin/sh
# bench/network.sh — the domains network's cost, side by side, in one run.
#
# Builds a test internet (two network namespaces joined by a veth pair,
# hosts on 198.51.100.0/24) and measures one Python client both ways:
# direct from the egress namespace (no sandbox), and inside a linux-backend
# sandbox under --network domains through its HTTP proxy. Prints the added
# latency per connection (connect + first byte, median and p90 of fresh
# connections), the throughput of one download (1 GiB by default) and the
# supervisor's heap around the proxied download.
#
# Needs: root (ip netns), go, python3, iproute2.
# NET_BENCH_CONNS (default 200) and NET_BENCH_BYTES (default 1073741824)
# tune it.
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
RINGFENCE_NET_BENCH=1 go test ./internal/confine/linux -run '^TestDomainsBenchmark$' -count=1 -v 2>&1 |
	grep -E '^(network benchmark|  )|FAIL|^ok'
