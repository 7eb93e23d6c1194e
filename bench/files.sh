#!/usr/bin/env bash
# bench/files.sh — grep_files and glob_files beside ripgrep, grep -r and
# find, in one run on the Go toolchain's own source tree. Prints medians
# (hyperfine) and the ratio of ringfence's time to each other tool's.
#
# Installs nothing. Needs: go, hyperfine, rg (ripgrep), grep, find, jq
# or python3. On Debian/Ubuntu: apt-get install -y ripgrep hyperfine
#
# Every tool searches everything (no ignore files, no size limits), so the
# match counts printed first must agree. ringfence runs under the agent's
# policy (policy.AgentDefaults: about twenty layers), as the MCP server
# does. Targets: grep every match rg -n finds in ≤ 1.0× rg's time for a
# literal, ≤ 1.2× for a regex; glob '**/*.go' every path in ≤ 1.0× find.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
for tool in go hyperfine rg grep find python3; do
	command -v "$tool" >/dev/null || missing+=("$tool")
done
if ((${#missing[@]})); then
	echo "missing: ${missing[*]} (apt-get install -y ripgrep hyperfine)" >&2
	exit 1
fi

TREE=${TREE:-$(go env GOROOT)/src}
RUNS=${RUNS:-10}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
go build -o "$OUT/wsbench" ./internal/workspace/cmd/wsbench
WS="$OUT/wsbench"

LITERAL=${LITERAL:-ErrShortWrite}
REGEX=${REGEX:-'func \w+Reader\('}
GLOB=${GLOB:-'**/*.go'}
FINDNAME=${FINDNAME:-'*.go'} # the same files as GLOB, for find

echo "tree: $TREE ($(du -sh "$TREE" | cut -f1), $(find "$TREE" -type f | wc -l) files), $(nproc) CPUs"
echo "counts (must agree):"
printf '  literal  ringfence %s  rg %s  grep %s\n' \
	"$("$WS" grep "$LITERAL" "$TREE")" \
	"$(rg -n -uu --no-ignore -- "$LITERAL" "$TREE" | wc -l)" \
	"$(grep -r -c -- "$LITERAL" "$TREE" | awk -F: '{s+=$NF} END{print s+0}')"
printf '  regex    ringfence %s  rg %s  grep %s\n' \
	"$("$WS" grep "$REGEX" "$TREE")" \
	"$(rg -n -uu --no-ignore -- "$REGEX" "$TREE" | wc -l)" \
	"$(grep -r -P -c -- "$REGEX" "$TREE" | awk -F: '{s+=$NF} END{print s+0}')"
printf '  glob     ringfence %s  find %s\n' \
	"$("$WS" glob "$GLOB" "$TREE")" \
	"$(find "$TREE" -name .git -prune -o \( -type f -o -type l \) -name "$FINDNAME" -print | wc -l)"

bench() { # name, then commands: the first is ringfence's
	local name=$1
	shift
	hyperfine -N --warmup 2 --runs "$RUNS" --export-json "$OUT/$name.json" "$@" >/dev/null
	python3 - "$OUT/$name.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[0]["median"]
for x in r:
    print(f"  {sys.argv[2]:8} {x['median']*1000:9.1f} ms  ratio ringfence/this {base/x['median']:5.2f}  {x['command'][:60]}")
PY
}

echo "medians:"
bench literal "$WS grep $LITERAL $TREE" "rg -n -uu --no-ignore $LITERAL $TREE" "grep -r -n $LITERAL $TREE"
bench regex "$WS grep '$REGEX' $TREE" "rg -n -uu --no-ignore '$REGEX' $TREE" "grep -r -n -P '$REGEX' $TREE"
bench glob "$WS glob '$GLOB' $TREE" "find $TREE -name .git -prune -o ( -type f -o -type l ) -name $FINDNAME -print"
