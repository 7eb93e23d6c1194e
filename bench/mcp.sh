#!/bin/sh
# bench/mcp.sh — what the MCP layer adds, in one run: the round trip of
# read_file (4 KiB) and run_command (`true`) through the stdio MCP server
# versus the same call through the Go API (tools.Set.Call), p50 and p99,
# and the idle server's RSS. Targets: under 0.3 ms added p50 to a file
# call; idle RSS under 30 MiB.
#
# Then read_file of 4 KiB and 1 MiB through `ringfence mcp` beside the
# official filesystem server (@modelcontextprotocol/server-filesystem,
# pinned in bench/mcpref and installed with npm ci), same run, same client
# (bench/mcpread). Target: ringfence's p50 at most the reference's. Set
# NO_REFERENCE=1 to skip it (no node/npm, or offline).
#
# Uses `ringfence mcp` when the built binary has it, else the driver's own
# serve mode (the same internal/mcp server). Needs: go; node and npm for
# the reference.
#   N=5000 CMD_N=500 READ_N=500 bench/mcp.sh
set -eu
cd "$(dirname "$0")/.."
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
go build -o "$OUT/mcpbench" ./bench/mcpbench
go build -o "$OUT/ringfence" ./cmd/ringfence
SERVER=""
if "$OUT/ringfence" mcp --help >/dev/null 2>&1; then
	SERVER="$OUT/ringfence mcp"
fi
echo "$(nproc) CPUs, $(uname -r)"
"$OUT/mcpbench" -n "${N:-2000}" -cmd-n "${CMD_N:-200}" ${SERVER:+-server "$SERVER"}

if [ -z "${NO_REFERENCE:-}" ]; then
	(cd bench/mcpref && npm ci --no-audit --no-fund --silent)
	go build -o "$OUT/mcpread" ./bench/mcpread
	"$OUT/mcpread" -n "${READ_N:-500}" -ringfence "$OUT/ringfence mcp" \
		-reference "node bench/mcpref/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
fi
