#!/usr/bin/env bash
# scripts/perf-rounds.sh — the benchmark rounds behind docs/performance.md's tables (issue 15's
# protocol), then their medians: scripts/perf-summary.py OUTDIR > OUTDIR/summary.md.
#
#   scripts/perf-rounds.sh [--rounds N] [--loaded N] [--markers N] [--nfs N] [--interleaved N] [--loaded-interleaved N] [--control JAR] OUTDIR
#
# Quiet rounds (default 6): every round runs the eight cases in turn — bench write|read|send at
# 64 KiB and 1 MiB (-D 2 --warmup 6 --cpu --json), lat-send and lat-write (-s 8 -n 20000) — so
# that RDMA and its TCP baselines alternate within each run and the cases alternate between runs.
# Every kind of round alternates `--order`: odd rounds measure RDMA first (rdma-first), even ones
# both TCP baselines first (tcp-first; with --interleave the three's rotation starts with raw TCP),
# so that a drift of the machine or the JIT during a run does not always favour the same side. The
# --control rounds keep each build's default order (RDMA first): an older build has no --order.
# Then --nfs N runs of `nfs bench --vers 3` and `--vers 4.1` alternating (default 2), --loaded N
# rounds of the bandwidth cases with --background-load 1 (default 4), --markers N rounds of
# `bench write --markers` at both sizes (default 2). With --control JAR, two rounds of write and
# send at both sizes alternate between JAR (another build of the command) and this tree's, to
# compare two builds' TCP baselines or RDMA paths in the same conditions. --interleaved N (default 2)
# runs N rounds of the six bandwidth cases with -D 12 --interleave 12: RDMA, raw TCP and TCP with
# copy in twelve windows of a second each, so that each window's ratios share the machine's
# conditions (about a minute per case); their pooled windows are the steadiest figures here.
# --loaded-interleaved N (default 1) runs the same with --background-load 1, for the loaded targets.
#
# Run it with nothing else running on the machine: the log records the load average before each
# run, and a round with other work in it says nothing about the code. Takes about 50 minutes with
# the defaults on a 2-core machine.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rounds=6 loaded=4 markers=2 nfs=2 interleaved=2 loadedinterleaved=1 control=
while [ $# -gt 1 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --loaded) loaded=$2; shift 2 ;;
    --markers) markers=$2; shift 2 ;;
    --nfs) nfs=$2; shift 2 ;;
    --interleaved) interleaved=$2; shift 2 ;;
    --loaded-interleaved) loadedinterleaved=$2; shift 2 ;;
    --control) control=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    *) echo "perf-rounds: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] && [ "${1#-}" = "$1" ] || { echo "usage: $0 [--rounds N] [--loaded N] [--markers N] [--nfs N] [--interleaved N] [--loaded-interleaved N] [--control JAR] OUTDIR" >&2; exit 2; }
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
iwarp="$here/iwarp"
"$iwarp" --version > "$out/version.txt" # builds the command first if it is missing or stale

log() { echo "$(date -u +%H:%M:%S) $* load=$(cut -d' ' -f1 /proc/loadavg)" >> "$out/log"; }
# order N: round N's --order, rdma-first in odd rounds and tcp-first in even ones (the defaults are
# even, so each order runs as often; an odd count gives RDMA first once more)
order() { if [ $(($1 % 2)) -eq 1 ]; then echo rdma-first; else echo tcp-first; fi; }
# run NAME ARGS...: one run of the command, its JSON to NAME.json and its stderr to NAME.err
run() {
  local name=$1; shift
  log "$name"
  "$@" > "$out/$name.json" 2> "$out/$name.err" || echo "$(date -u +%H:%M:%S) $name failed: exit $?" >> "$out/log"
}

for r in $(seq 1 "$rounds"); do
  for op in write read send; do for s in 65536 1048576; do
    run "r$r-$op-$s" "$iwarp" bench $op -s $s -D 2 --warmup 6 --cpu --order "$(order "$r")" --json
  done; done
  for op in lat-send lat-write; do
    run "r$r-$op" "$iwarp" bench $op -s 8 -n 20000 --cpu --order "$(order "$r")" --json
  done
done
for i in $(seq 1 "$nfs"); do for v in 3 4.1; do
  log "nfs-v$v-$i"
  "$iwarp" nfs bench --vers $v -s 256m -n 3 > "$out/nfs-v$v-$i.txt" 2>&1 || log "nfs-v$v-$i failed"
done; done
for r in $(seq 1 "$loaded"); do
  for op in write read send; do for s in 65536 1048576; do
    run "l$r-$op-$s" "$iwarp" bench $op -s $s -D 2 --warmup 6 --cpu --background-load 1 --order "$(order "$r")" --json
  done; done
done
for r in $(seq 1 "$markers"); do for s in 65536 1048576; do
  run "m$r-write-$s" "$iwarp" bench write -s $s -D 2 --warmup 6 --cpu --markers --order "$(order "$r")" --json
done; done
for r in $(seq 1 "$interleaved"); do
  for op in write read send; do for s in 65536 1048576; do
    run "i$r-$op-$s" "$iwarp" bench $op -s $s -D 12 --interleave 12 --warmup 6 --cpu --order "$(order "$r")" --json
  done; done
done
for r in $(seq 1 "$loadedinterleaved"); do
  for op in write read send; do for s in 65536 1048576; do
    run "j$r-$op-$s" "$iwarp" bench $op -s $s -D 12 --interleave 12 --warmup 6 --cpu --background-load 1 --order "$(order "$r")" --json
  done; done
done
if [ -n "$control" ]; then
  for r in 1 2; do for s in 1048576 65536; do for op in write send; do
    run "control$r-$op-$s" java -jar "$control" bench $op -s $s -D 2 --warmup 6 --cpu --json
    run "tree$r-$op-$s" "$iwarp" bench $op -s $s -D 2 --warmup 6 --cpu --json
  done; done; done
fi
log done
python3 "$here/scripts/perf-summary.py" "$out" > "$out/summary.md"
cat "$out/summary.md"
