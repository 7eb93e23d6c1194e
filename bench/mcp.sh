#!/bin/sh
# bench/mcp.sh — what the MCP layer adds, in one run: the round trip of
# read_file (4 KiB) and run_command (`true`) through the stdio MCP server
# versus the same call through the Go API (tools.Set.Call), p50 and p99,
# and the idle server's RSS. Targets: under 0.3 ms added p50 to a file
# call; idle RSS under 30 MiB.
#
# Uses `ringfence mcp` when the built binary has it, else the driver's own
# serve mode (the same internal/mcp server). Needs: go.
#   N=5000 CMD_N=500 bench/mcp.sh
set -eu
cd "$(dirname "$0")/.."
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
go build -o "$OUT/mcpbench" ./internal/mcp/cmd/mcpbench
go build -o "$OUT/ringfence" ./cmd/ringfence
SERVER=""
if "$OUT/ringfence" mcp --help >/dev/null 2>&1; then
	SERVER="$OUT/ringfence mcp"
fi
echo "$(nproc) CPUs, $(uname -r)"
"$OUT/mcpbench" -n "${N:-2000}" -cmd-n "${CMD_N:-200}" ${SERVER:+-server "$SERVER"}
