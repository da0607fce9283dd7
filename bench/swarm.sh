#!/usr/bin/env bash
# The Swarm path of a sharded run, end to end on this machine:
# images built here from static binaries (nothing pulled), a single-node
# swarm on 127.0.0.1, the loopback load target (-delay: a known service
# time) as a service on an overlay network, then the stack that
# `searchbench deploy swarm` writes, twice:
#
#   1 shard  × 100 users   (--users 100 --shards 1)
#   3 shards × 100 users   (--users 300 --shards 3)
#
# Each merged result is fetched from the coordinator's volume and checked
# (bench/cmd/shardcheck): every shard present, users summed, each shard's
# start offsets recorded; then the scaling claim: the same p50 and p99
# within 5%, 3× the throughput, Little's law. Everything made is removed on
# exit, failure or interrupt, and the swarm left if this script made it.
#
#   bash bench/swarm.sh [-measure 15s] [-delay 50ms] [-users 100] [-shards 3] [-strict]
#
# The merge checks and Little's law fail the script; the scaling figures
# are printed as met or not, and fail it only with -strict (shards sharing
# a small machine's cores lengthen each other's tail). Bounded: each stack
# must finish within -deadline (180 s); bench/README.md ("Sharded runs on
# Swarm") says how long the whole script takes.
set -euo pipefail

measure=15s delay=50ms users=100 shards=3 deadline=180 strict=""
while [ $# -gt 0 ]; do
	case $1 in
	-strict)
		strict=-strict
		shift
		continue
		;;
	-measure) measure=$2 ;;
	-delay) delay=$2 ;;
	-users) users=$2 ;;
	-shards) shards=$2 ;;
	-deadline) deadline=$2 ;;
	-h | --help)
		sed -n '2,23p' "$0"
		exit 0
		;;
	*)
		echo "swarm: unknown argument $1" >&2
		exit 2
		;;
	esac
	shift 2
done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
if ! docker info >/dev/null 2>&1; then
	echo "swarm: docker is not reachable" >&2
	exit 2
fi

tag=swarm-test
image=searchbench/searchbench:$tag
target_image=searchbench/loopback:$tag
prefix=sbswarm # every service, network and stack made here
network=$prefix-net
target=$prefix-loopback
work=$(mktemp -d "${TMPDIR:-/tmp}/searchbench-swarm.XXXXXX")
# The target wants a key, so that the path of a credential is proven too:
# the shards get it from this shell's environment, never from the file.
export SEARCHBENCH_API_KEY="swarm-$RANDOM$RANDOM"
made_swarm=0
had_gwbridge=0
docker network inspect docker_gwbridge >/dev/null 2>&1 && had_gwbridge=1
stacks=()

log() { printf 'swarm: %s\n' "$*" >&2; }

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	set +e
	log "cleaning up"
	for s in "${stacks[@]}"; do docker stack rm "$s" >/dev/null 2>&1; done
	docker service rm "$target" >/dev/null 2>&1
	# Services go away asynchronously; their containers hold the network
	# and the volumes until then.
	for _ in $(seq 60); do
		[ -z "$(docker ps -aq --filter "name=$prefix")" ] && break
		sleep 1
	done
	docker ps -aq --filter "name=$prefix" | xargs -r docker rm -f >/dev/null 2>&1
	for s in "${stacks[@]}"; do docker volume rm "${s}_results" >/dev/null 2>&1; done
	for _ in $(seq 20); do
		docker network rm "$network" >/dev/null 2>&1 || true
		docker network inspect "$network" >/dev/null 2>&1 || break
		sleep 1
	done
	docker image rm "$image" "$target_image" >/dev/null 2>&1
	if [ "$made_swarm" = 1 ]; then
		docker swarm leave --force >/dev/null 2>&1
		[ "$had_gwbridge" = 1 ] || docker network rm docker_gwbridge >/dev/null 2>&1
	fi
	rm -rf "$work"
	left=$(
		docker service ls -q --filter "name=$prefix" 2>/dev/null
		docker network ls -q --filter "name=$prefix"
		docker volume ls -q --filter "name=$prefix"
		docker image ls -q "searchbench/*:$tag"
	)
	if [ -n "$left" ]; then
		log "left behind: $left"
		rc=1
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT TERM

# ---- images: static binaries in a tar, docker import (no pull) ----------
log "building the images"
for what in searchbench:cmd/searchbench loopback:bench/cmd/loopback; do
	name=${what%%:*} pkg=${what#*:}
	mkdir -p "$work/$name/usr/local/bin" "$work/$name/tmp"
	chmod 1777 "$work/$name/tmp"
	CGO_ENABLED=0 go build -o "$work/$name/usr/local/bin/$name" "./$pkg"
	tar -C "$work/$name" -cf "$work/$name.tar" .
done
docker import --change 'ENTRYPOINT ["/usr/local/bin/searchbench"]' "$work/searchbench.tar" "$image" >/dev/null
docker import --change 'ENTRYPOINT ["/usr/local/bin/loopback"]' "$work/loopback.tar" "$target_image" >/dev/null
go build -o "$work/shardcheck" ./bench/cmd/shardcheck
sb=$work/searchbench/usr/local/bin/searchbench

# ---- a swarm, an overlay network, the target --------------------------------
if [ "$(docker info --format '{{.Swarm.LocalNodeState}}')" != active ]; then
	log "docker swarm init --advertise-addr 127.0.0.1"
	docker swarm init --advertise-addr 127.0.0.1 >/dev/null
	made_swarm=1
fi
docker network create --driver overlay --attachable "$network" >/dev/null
# dnsrr: resolved to the task itself, no virtual IP (which needs IPVS).
docker service create --quiet --detach --name "$target" --network "$network" --endpoint-mode dnsrr \
	--restart-condition none --env LOOPBACK_KEY="$SEARCHBENCH_API_KEY" \
	"$target_image" -addr :7701 -in-container -delay "$delay" >/dev/null
for i in $(seq 60); do
	state=$(docker service ps "$target" --format '{{.CurrentState}}' | head -1)
	case $state in Running*) break ;; esac
	[ "$i" = 60 ] && { log "the target is not running: $state"; exit 1; }
	sleep 1
done
log "target: $target (searches held $delay), on $network"

# run_stack NAME SHARDS USERS: deploy the stack, wait for its coordinator,
# fetch the merged result into $work/NAME.
run_stack() {
	local name=$1 n=$2 u=$3 file=$work/$1.yml
	"$sb" deploy swarm --shards "$n" --image "$image" --name "$name" --network "$network" --port 7070 \
		--register-timeout 1m --out "$file" -- \
		run --engine meilisearch --url "http://$target:7701" --mix search \
		--ids 1000 --prepopulate 0 --relevance-queries 0 --no-freshness \
		--users "$u" --spawn-rate 10000 --settle 3s --measure "$measure" --timeout 5s >/dev/null
	if grep -q "$SEARCHBENCH_API_KEY" "$file"; then
		log "the key is in the stack file"
		exit 1
	fi
	stacks+=("$name")
	log "$name: docker stack deploy ($n shards, $u users)"
	docker stack deploy --compose-file "$file" "$name" >/dev/null
	local svc=${name}_$name-coordinator started=$SECONDS state=""
	while :; do
		state=$(docker service ps "$svc" --format '{{.CurrentState}}' 2>/dev/null | head -1)
		case $state in Complete* | Failed* | Rejected* | Shutdown*) break ;; esac
		if ((SECONDS - started > deadline)); then
			log "$name: the coordinator did not finish within ${deadline}s ($state)"
			docker service logs --tail 20 "$svc" >&2 || true
			docker service logs --tail 20 "${name}_$name-shard" >&2 || true
			exit 1
		fi
		sleep 2
	done
	log "$name: coordinator $state after $((SECONDS - started))s"
	docker service ps "${name}_$name-shard" --format '  {{.Name}} {{.CurrentState}} {{.Error}}' >&2
	if docker service ps "${name}_$name-shard" "$svc" --format '{{.CurrentState}}' | grep -qv '^Complete'; then
		log "$name: the last lines of the logs"
		docker service logs --no-task-ids --tail 8 "$svc" >&2 || true
		docker service logs --no-task-ids --tail 8 "${name}_$name-shard" >&2 || true
	fi
	local c
	c=$(docker ps -aq --filter "label=com.docker.swarm.service.name=$svc" | head -1)
	docker cp "$c:/results" "$work/$name" >/dev/null
	if grep -rq "$SEARCHBENCH_API_KEY" "$work/$name"; then
		log "$name: the key is in the results"
		exit 1
	fi
}

run_stack "${prefix}1" 1 "$users"
run_stack "${prefix}$shards" "$shards" $((users * shards))

echo "swarm: $(docker version --format '{{.Server.Version}}') engine; loopback target holding each search $delay; measure $measure"
"$work/shardcheck" -shards "$shards" $strict -base "$work/${prefix}1/result.json" "$work/${prefix}$shards/result.json"
