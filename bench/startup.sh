#!/bin/sh
# bench/startup.sh — start-up cost of confinement, side by side, in one run.
#
# Times bare exec, each ringfence backend (and danger-full-access, which
# runs the command under the subreaper alone), and bubblewrap with an equivalent
# agent profile (host read-only, the workspace writable, fresh /dev and
# /proc, private /tmp, every namespace unshared), for /bin/true and for a
# small write in the workspace; prints medians and ratios to bwrap and to
# bare exec, `ringfence version` against a static Go hello world, the
# init's peak RSS, and CPU time and page faults per run (perf stat, when
# perf is installed: on a loaded machine wall time is mostly waiting, and
# CPU and faults are the figures that move with the code), and the start of
# the init alone: the small init the binary carries (what runs) against the
# whole ringfence binary started as its init (RINGFENCE_INIT=self).
#
# Needs: go, hyperfine, bwrap, python3 (for the summary); perf optional.
# Tells you what is missing. It builds ringfence and times `ringfence run --backend B`
# (RINGFENCE=/path/to/ringfence times that binary instead).
# RUNS (default 300) and WARMUP (default 30) tune hyperfine.
set -eu

missing=""
for tool in go hyperfine bwrap python3; do
	command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	echo "bench/startup.sh: missing:$missing (e.g. apt-get install -y hyperfine bubblewrap)" >&2
	exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
out="$here/out"
mkdir -p "$out"
ws=$(mktemp -d /var/tmp/ringfence-bench-XXXXXX)
trap 'rm -rf "$ws"' EXIT INT TERM
runs=${RUNS:-300}
warmup=${WARMUP:-30}

if [ -z "${RINGFENCE:-}" ]; then
	(cd "$here/.." && CGO_ENABLED=0 go build -trimpath -o "$out/ringfence" ./cmd/ringfence)
	RINGFENCE="$out/ringfence"
fi
hello="$out/hello"
mkdir -p "$out/hello-src"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$out/hello-src/main.go"
printf 'module hello\n\ngo 1.21\n' >"$out/hello-src/go.mod"
(cd "$out/hello-src" && CGO_ENABLED=0 go build -trimpath -o "$hello" .)
# The carried init, as a file, to time its start alone (`__confine` without
# a spec fails the set-up at once, exit 125, as the whole binary does).
cp "$here/../internal/confine/initimage/init_linux_amd64.bin" "$out/init" && chmod 755 "$out/init"
rf() { echo "$RINGFENCE run -q --root $ws --backend $1 --"; }
bwrap_profile="bwrap --ro-bind / / --bind $ws $ws --dev /dev --proc /proc --tmpfs /tmp --unshare-all --die-with-parent --chdir $ws"

for backend in linux landlock; do
	if ! $(rf $backend) /bin/true; then
		echo "bench/startup.sh: the $backend backend does not run here; its rows will fail" >&2
	fi
done

write='/bin/sh -c "echo x > f"'
cd "$ws"
hyperfine -N --warmup "$warmup" --runs "$runs" --export-json "$out/startup.json" \
	-n bare-true "/bin/true" \
	-n linux-true "$(rf linux) /bin/true" \
	-n landlock-true "$(rf landlock) /bin/true" \
	-n bwrap-true "$bwrap_profile /bin/true" \
	-n bare-write "$write" \
	-n linux-write "$(rf linux) $write" \
	-n landlock-write "$(rf landlock) $write" \
	-n bwrap-write "$bwrap_profile $write" \
	-n danger-true "$RINGFENCE run -q --root $ws --mode danger-full-access -- /bin/true" \
	-n rfbwrap-true "$(rf bwrap) /bin/true" \
	-n version "$RINGFENCE version" \
	-n hello "$hello" >/dev/null
hyperfine -N -i --warmup "$warmup" --runs "$runs" --export-json "$out/init.json" \
	-n init-carried "$out/init __confine" \
	-n init-whole "$RINGFENCE __confine" >/dev/null 2>&1

# CPU time and page faults per run, summed over the whole process tree.
faults="$out/faults.txt"
: >"$faults"
if command -v perf >/dev/null 2>&1; then
	for who in linux landlock bwrap; do
		case $who in
		bwrap) cmd="$bwrap_profile /bin/true" ;;
		*) cmd="$(rf $who) /bin/true" ;;
		esac
		# shellcheck disable=SC2086
		perf stat -x, -e task-clock,page-faults -r 30 $cmd 2>&1 >/dev/null |
			awk -F, -v who="$who" '$3=="task-clock"{c=$1} $3=="page-faults"{f=$1} END{print who, c, f}' >>"$faults"
	done
fi

hwm=$($(rf linux) /bin/sh -c 'grep VmHWM /proc/1/status' | awk '{print $2}')
hwm_whole=$(RINGFENCE_INIT=self $(rf linux) /bin/sh -c 'grep VmHWM /proc/1/status' | awk '{print $2}')
python3 - "$out/startup.json" "$hwm" "$faults" "$out/init.json" "$hwm_whole" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
med = {k: v["median"] * 1000 for k, v in res.items()}
print("%-16s %10s %10s %12s %12s %12s" % ("", "median ms", "min ms", "x bwrap", "- bare ms", "cpu ms"))
for kind in ("true", "write"):
    for who in ("bare", "linux", "landlock", "bwrap"):
        k = who + "-" + kind
        cpu = (res[k]["user"] + res[k]["system"]) * 1000
        print("%-16s %10.2f %10.2f %12.2f %12.2f %12.2f" % (k, med[k], res[k]["min"] * 1000,
              med[k] / med["bwrap-" + kind], med[k] - med["bare-" + kind], cpu))
print("danger-full-access (the subreaper only) %.2f ms: %.2fx bare; --backend bwrap %.2f ms: %.2fx plain bwrap" % (
    med["danger-true"], med["danger-true"] / med["bare-true"], med["rfbwrap-true"], med["rfbwrap-true"] / med["bwrap-true"]))
print("version %.2f ms, static hello world %.2f ms: %.2fx (target <= 1.5x)" % (
    med["version"], med["hello"], med["version"] / med["hello"]))
print("targets: linux <= 0.75x bwrap; landlock within 1.5 ms of bare")
print("linux init peak RSS (VmHWM): %s kB (target <= 4096); the whole binary as the init: %s kB" % (sys.argv[2], sys.argv[5]))
ini = {r["command"]: r["median"] * 1000 for r in json.load(open(sys.argv[4]))["results"]}
print("init start alone: carried %.2f ms, whole binary %.2f ms (%.2fx)" % (
    ini["init-carried"], ini["init-whole"], ini["init-whole"] / ini["init-carried"]))
rows = [l.split() for l in open(sys.argv[3]) if len(l.split()) == 3]
if rows:
    f = {r[0]: (float(r[1]), float(r[2])) for r in rows}
    print("%-10s %10s %12s %12s" % ("per run", "cpu ms", "page faults", "x bwrap"))
    for who, (cpu, pf) in f.items():
        print("%-10s %10.2f %12.0f %12.2f" % (who, cpu, pf, pf / f["bwrap"][1] if "bwrap" in f else 0))
    print("target: page faults <= 1.5x bwrap")
PY

# Inside a long-lived process (the MCP server, `serve`, a Go program): a
# one-shot Exec per call, the carried init copied into its memfd once per
# process, against a whole (test) binary started as each call's init.
(cd "$here/.." && go test -c -o "$out/sandbox.test" ./internal/sandbox/) || exit 0
for mode in embedded self; do
	printf 'library Exec of /bin/true, init %-8s ' "$mode"
	RINGFENCE_INIT=$mode "$out/sandbox.test" -test.run '^$' -test.bench '^BenchmarkOneShotTrue$' -test.benchtime "${runs}x" |
		awk '/^BenchmarkOneShotTrue/ { for (i = 1; i <= NF; i++) if ($(i+1) == "p50-ns") printf "p50 %.2f ms\n", $i / 1e6 }'
done
