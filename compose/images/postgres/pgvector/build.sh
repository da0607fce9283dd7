#!/usr/bin/env bash
# Builds searchbench/pgvector:0.8.6-pg15 — searchbench/postgres:15 (the
# recipe one directory up) with pgvector 0.8.6 added — for machines that
# cannot pull the official pgvector/pgvector image. pgvector is compiled
# from its release source beside this script (see README.md: origin,
# licence, checksum) against Debian bookworm's postgresql-server-dev-15 in a
# throw-away root made by debootstrap; only what `make install` puts in
# place is copied onto the base image.
#   bash compose/images/postgres/pgvector/build.sh [tag]
set -euo pipefail
tag=${1:-searchbench/pgvector:0.8.6-pg15}
here=$(cd "$(dirname "$0")" && pwd)
version=0.8.6
sum=5743dac39fdfa740533cf95e71b033bd5513b71dda194b3cf19464ccbf76f3fb
base=searchbench/postgres:15
# The recipe's version, kept as a label: an image an older recipe built is
# built again.
recipe=1
if [ "$(docker image inspect -f '{{index .Config.Labels "org.searchbench.recipe"}}' "$tag" 2>/dev/null)" = "pgvector-$recipe" ]; then
	echo "image $tag is already present"
	exit 0
fi
src="$here/pgvector-$version.tar.gz"
echo "$sum  $src" | sha256sum -c --quiet -
bash "$here/../build.sh" "$base"
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
root=$(mktemp -d)
ctx=$(mktemp -d)
trap 'rm -rf "$root" "$ctx"' EXIT
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
debootstrap --variant=minbase --include=postgresql-server-dev-15,gcc,make,libc6-dev "${DEBIAN_SUITE:-bookworm}" "$root" "$mirror" >/dev/null
tar -C "$root/tmp" -xzf "$src"
# OPTFLAGS="": no -march=native, as the official image builds it, so the
# image runs on any x86-64 machine it is copied to. with_llvm=no: Debian's
# PostgreSQL is built with LLVM JIT, and PGXS would otherwise want clang to
# make bitcode the server only uses for JIT-inlining.
chroot "$root" make -s -C "/tmp/pgvector-$version" OPTFLAGS="" with_llvm=no >/dev/null
chroot "$root" make -s -C "/tmp/pgvector-$version" OPTFLAGS="" with_llvm=no install DESTDIR=/tmp/out >/dev/null
cp -a "$root/tmp/out" "$ctx/files"
printf 'FROM %s\nCOPY files/ /\nLABEL org.searchbench.recipe=pgvector-%s org.searchbench.pgvector=%s\n' "$base" "$recipe" "$version" > "$ctx/Dockerfile"
docker build -q -t "$tag" "$ctx" >/dev/null
echo "built $tag"
