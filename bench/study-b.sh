#!/usr/bin/env bash
# Study B's four experiments on one small machine: Valkey + valkey-search in
# a container pinned to one CPU, the load generator pinned to another, each
# experiment one shipped scenario (`searchbench scenario show valkey-…`) with
# its scale brought down to that machine. Everything else is the study's
# method: product hashes of 1,024 dimensions, upserts only, an open-loop
# ladder by ×1.19, three repetitions per rung (the median kept), the
# sustainable rate by the same rule, the server's own counters per rung.
#   bash bench/study-b.sh [flags] [EXPERIMENT…]     (1 2 3 4; default all four)
# Flags (defaults in brackets): -ids N [20000], -duration D [4s] (each
# repetition of a rung), -repeat N [3], -workers N [64], -server-cpu C [1],
# -client-cpu C [0], -out DIR [results/study-b]: DIR/<n>-<scenario>/ holds
# each experiment's result.json, tables.md and charts.
# What changes from the published runs, and why (docs/study-b.md puts the
# two tables side by side):
#   - the server gets 1 CPU (the study: 8 cores) and 1 reader and 1 writer
#     thread (the study: 8 and 8): so rates are about an eighth or less;
#   - the ladders start an eighth as high (experiments 1 and 2: 250/s; 3
#     and 4, whose vector index takes each write ~12× the work: 125/s), and
#     p99 is reported at the first rung, as the study reports it at its
#     first (2,000/s; 2,828/s for experiment 4);
#   - 20,000 IDs, not 100,000 (pre-populating an HNSW index of 1,024
#     dimensions on one core takes minutes per setup), and rungs of 3 × 4 s,
#     not 3 × 25 s;
#   - 64 connections, not 384 (one generator core; the open loop's latency
#     is still timed from the intended send, and the harness says when the
#     generator rather than the server falls behind).
# The image is the launcher's: valkey/valkey-bundle:9.1.0 where it can be
# pulled, else searchbench/valkey-search:1.2.1 built here (about 25 minutes
# the first time). About 40 minutes for all four on a 2-core machine.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
ids=20000 duration=4s repeat=3 workers=64 server_cpu=1 client_cpu=0 out=results/study-b
experiments=()
while (($#)); do
	case $1 in
	-ids) ids=$2; shift 2 ;;
	-duration) duration=$2; shift 2 ;;
	-repeat) repeat=$2; shift 2 ;;
	-workers) workers=$2; shift 2 ;;
	-server-cpu) server_cpu=$2; shift 2 ;;
	-client-cpu) client_cpu=$2; shift 2 ;;
	-out) out=$2; shift 2 ;;
	-h | --help) sed -n '2,31p' "$0"; exit 0 ;;
	[1-4]) experiments+=("$1"); shift ;;
	*) echo "study-b: unknown argument $1 (see -h)" >&2; exit 2 ;;
	esac
done
((${#experiments[@]})) || experiments=(1 2 3 4)
scenario=([1]=valkey-idle-indexes [2]=valkey-matching-indexes [3]=valkey-vector-cost [4]=valkey-hybrid)
start=([1]=250 [2]=250 [3]=125 [4]=125)

bin=$(mktemp -d "${TMPDIR:-/tmp}/searchbench-study-b.XXXXXX")
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/searchbench" ./cmd/searchbench
for n in "${experiments[@]}"; do
	dir="$out/$n-${scenario[$n]}"
	echo "study-b: experiment $n (${scenario[$n]}) → $dir"
	began=$(date +%s)
	taskset -c "$client_cpu" "$bin/searchbench" ladder --scenario "${scenario[$n]}" \
		--cpus 1 --cpuset "$server_cpu" --option reader_threads=1 --option writer_threads=1 \
		--ids "$ids" --start "${start[$n]}" --reference-rate "${start[$n]}" \
		--duration "$duration" --repeat "$repeat" --workers "$workers" \
		--run-name "study-b-$n" --out "$dir"
	echo "study-b: experiment $n took $(($(date +%s) - began)) s"
done
