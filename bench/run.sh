#!/usr/bin/env bash
# Runs searchbench, wrk, vegeta and bombardier side by side against the
# loopback load target, then searchbench's product upserts against
# valkey-benchmark on a local valkey-server, and prints their figures and
# searchbench's ratios against the targets (bench/README.md). Every load goes to 127.0.0.1 and is bounded in
# time. Arguments go to the orchestrator (bench/cmd/sidebyside), e.g.
#   bash bench/run.sh -rounds 5 -conns 64 -rate 5000
# It builds the three Go programs, installs wrk (Debian) and vegeta and
# bombardier (go install, into a temporary GOBIN) when they are missing; the
# Valkey leg runs when valkey-server and valkey-benchmark are installed
# (Debian's valkey-server package, as .ci/run installs it), pins the load
# generators to CPU 0 and the server to CPU 1 (see -client-cpu/-server-cpu).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
work=${TMPDIR:-/tmp}/searchbench-bench
bin=$work/bin
mkdir -p "$bin"

need() { command -v "$1" >/dev/null 2>&1; }

if ! need taskset; then
	echo "bench: taskset (util-linux) is needed to pin the processes" >&2
	exit 2
fi
if ! need wrk; then
	echo "bench: installing wrk (Debian package)" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq wrk >/dev/null
fi
vegeta=$(command -v vegeta || true)
if [ -z "$vegeta" ]; then
	vegeta=$bin/vegeta
	if [ ! -x "$vegeta" ]; then
		echo "bench: installing vegeta v12.13.0 into $bin" >&2
		GOBIN=$bin GOFLAGS= go install github.com/tsenart/vegeta/v12@v12.13.0
	fi
fi

bombardier=$(command -v bombardier || true)
if [ -z "$bombardier" ]; then
	bombardier=$bin/bombardier
	if [ ! -x "$bombardier" ]; then
		echo "bench: installing bombardier v1.2.6 into $bin" >&2
		GOBIN=$bin GOFLAGS= go install github.com/codesenberg/bombardier@v1.2.6
	fi
fi
valkey=()
if need valkey-server && need valkey-benchmark; then
	valkey=(-valkey-server "$(command -v valkey-server)" -valkey-benchmark "$(command -v valkey-benchmark)")
else
	echo "bench: valkey-server or valkey-benchmark is not installed: no Valkey leg" >&2
fi

echo "bench: building searchbench, the loopback target and the orchestrator" >&2
go build -o "$bin/searchbench" ./cmd/searchbench
go build -o "$bin/loopback" ./bench/cmd/loopback
go build -o "$bin/sidebyside" ./bench/cmd/sidebyside

echo "bench: commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(go version | cut -d' ' -f3), wrk $(wrk -v 2>&1 | head -1 | cut -d' ' -f2), vegeta $vegeta, bombardier $bombardier" >&2
exec "$bin/sidebyside" -repo "$repo" -searchbench "$bin/searchbench" -loopback "$bin/loopback" \
	-wrk "$(command -v wrk)" -vegeta "$vegeta" -bombardier "$bombardier" "${valkey[@]}" "$@"
