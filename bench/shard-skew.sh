#!/usr/bin/env bash
# Measures the start skew of 3 shard processes on this machine: builds
# searchbench and the loopback target (bench/loopback), serves it on
# 127.0.0.1, runs `searchbench coordinate` and 3 `searchbench run --shard
# i/3` against it (a search-only closed loop of LEVELS levels, each a
# synchronised start), and prints the coordinator's line: the spread of
# the shards' lateness at each start (median and max), and the bound the
# clock-offset estimates put on it. Everything goes to 127.0.0.1 and ends
# within about a minute; the processes are stopped on exit.
#   bash bench/shard-skew.sh [LEVELS]   (default 10)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
levels=${1:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/searchbench-skew.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/searchbench" ./cmd/searchbench
go build -o "$work/loopback" ./bench/cmd/loopback
target=127.0.0.1:21795
coord=127.0.0.1:21796
"$work/loopback" -addr "$target" >"$work/loopback.log" 2>&1 &
pids+=($!)

users=$(printf '3,%.0s' $(seq "$levels"))
users=${users%,}
"$work/searchbench" coordinate --listen "$coord" --shards 3 --register-timeout 30s --out "$work/merged" \
	>/dev/null 2>"$work/coordinate.log" &
coordinator=$!
pids+=($coordinator)
for i in 0 1 2; do
	"$work/searchbench" run --engine meilisearch --url "http://$target" --mix search --users "$users" \
		--spawn-rate 1000 --settle 100ms --measure 500ms --ids 1000 --prepopulate 0 --relevance-queries 0 \
		--no-freshness --shard "$i/3" --coordinator "$coord" --register-timeout 30s --out "$work/shard-$i" \
		>/dev/null 2>"$work/shard-$i.log" &
	pids+=($!)
done
status=0
wait "$coordinator" || status=$?
if [ "$status" -ne 0 ]; then
	echo "shard-skew: the coordinator exited $status:" >&2
	cat "$work/coordinate.log" >&2
	exit 1
fi
grep -o 'start skew over .*' "$work/coordinate.log"
