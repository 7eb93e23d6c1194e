#!/bin/sh
# The supervision figures of issue 4, in one run:
#  - RSS growth of the supervisor while `yes` streams 10 GiB under a 1 MiB
#    ceiling (TestFloodMemoryIsBounded with RF_RUN_FLOOD_GIB=10);
#  - output throughput through run.Run versus a bare os/exec pipe
#    (BenchmarkThroughput: compare the two MB/s columns).
set -eu
cd "$(dirname "$0")/.."
RF_RUN_FLOOD_GIB="${RF_RUN_FLOOD_GIB:-10}" go test -count=1 -run '^TestFloodMemoryIsBounded$' -v ./internal/run/ | grep -E 'streamed|ok|FAIL'
go test -count=1 -run '^$' -bench 'Throughput|Startup' -benchtime "${BENCHTIME:-5x}" ./internal/run/
