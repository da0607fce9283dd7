#!/usr/bin/env bash
# Builds searchbench/valkey-search:1.2.1 — Debian sid's valkey-server 9.1
# with the valkey-search 1.2.1 module — for machines that cannot pull the
# official valkey/valkey-bundle image. Only Debian's package archive is
# used: the module is compiled from its release source beside this script
# (valkey-search/README.md: origin, licence, checksum, patches) against
# sid's own gRPC, protobuf and abseil in a throw-away root made by
# debootstrap; the image is a second, minimal sid root with valkey-server,
# the libraries the module links and the stripped module, without the
# compilers.
#   bash compose/images/valkey/build.sh [tag]
# About 25 minutes on 2 cores, most of it compiling; it prints its time and
# keeps it in the image's label org.searchbench.build-seconds.
set -euo pipefail
tag=${1:-searchbench/valkey-search:1.2.1}
here=$(cd "$(dirname "$0")" && pwd)
version=1.2.1
sum=e77a3907810a673a2dcb473c9fe48a651fd3da3b7334d1d8d860c85f729a71db
# ICU's data file, absent from the source archive: the same bytes are in
# Debian's icu 76.1 source package (upstream's git blob adabcdc5… matches).
icu=76.1-4
icudat_sum=dbc14e1c48ef209f230adc2aa6854bd4d6bba8f5e6733e75897a4263d97920f0
# The recipe's version, kept as a label: an image an older recipe built is
# built again (2: the module is installed executable, as Valkey 9.1 requires).
recipe=2
if [ "$(docker image inspect -f '{{index .Config.Labels "org.searchbench.recipe"}}' "$tag" 2>/dev/null)" = "valkey-search-$recipe" ]; then
	echo "image $tag is already present"
	exit 0
fi
started=$(date +%s)
src="$here/valkey-search/valkey-search-$version.tar.gz"
echo "$sum  $src" | sha256sum -c --quiet -
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
build=$(mktemp -d)
run=$(mktemp -d)
cleanup() {
	umount "$build/proc" "$run/proc" 2>/dev/null || true
	rm -rf "$build" "$run" "$run.log"
}
trap cleanup EXIT

# sid_root DIR: a minimal Debian sid root ready for apt-get: services are
# not started by packages, and the mirror's Release files are taken even
# when past their Valid-Until (a snapshot mirror's are).
sid_root() {
	debootstrap --variant=minbase sid "$1" "$mirror" >/dev/null
	printf 'Acquire::Check-Valid-Until "false";\nAcquire::Check-Date "false";\n' >"$1/etc/apt/apt.conf.d/99searchbench"
	printf '#!/bin/sh\nexit 101\n' >"$1/usr/sbin/policy-rc.d"
	chmod 0755 "$1/usr/sbin/policy-rc.d"
	printf 'deb %s sid main\n' "$mirror" >"$1/etc/apt/sources.list"
}
apt_in() { # ROOT apt-get arguments…
	local root=$1
	shift
	chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -qq -o=Dpkg::Use-Pty=0 "$@" >/dev/null
}
step() { echo "valkey-search image: $* ($(($(date +%s) - started)) s)"; }
# quiet CMD…: runs CMD with its output kept in a log, shown (the end of it)
# only if it fails — the compilers' warnings run to thousands of lines.
quiet() {
	"$@" >"$run.log" 2>&1 || {
		local rc=$?
		tail -n 40 "$run.log" >&2
		return $rc
	}
}

step "debootstrap sid (build root)"
sid_root "$build"
# trixie's deb-src is used only for ICU's source package.
printf 'deb-src %s trixie main\n' "$mirror" >>"$build/etc/apt/sources.list"
mount -t proc proc "$build/proc"
apt_in "$build" update
step "installing the compilers and sid's gRPC, protobuf and abseil"
apt_in "$build" install --no-install-recommends valkey-server g++ make cmake ninja-build \
	libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev \
	libgtest-dev libgmock-dev libhighwayhash-dev libbenchmark-dev libssl-dev libsystemd-dev \
	libjemalloc-dev pkg-config git python3 dpkg-dev ca-certificates

step "unpacking valkey-search $version and ICU's data file"
tar -C "$build/tmp" -xzf "$src"
tree="/tmp/valkey-search-$version"
chroot "$build" sh -c "mkdir -p /tmp/icu && cd /tmp/icu && apt-get -qq source --download-only icu=$icu >/dev/null"
datdir="$build$tree/third_party/icu/source/data/in"
tar -xzf "$build"/tmp/icu/icu_*.orig.tar.gz --strip-components=4 -C "$datdir" icu/source/data/in/icudt76l.dat
echo "$icudat_sum  $datdir/icudt76l.dat" | sha256sum -c --quiet -
for p in "$here"/valkey-search/patches/*.patch; do
	(cd "$build$tree" && git apply -p1 "$p")
done

step "compiling ICU, then the module (the long part)"
# -DLIBHIGHWAYHASH_LIBDIR: its find_path looks under the include
# directories, not the multiarch library directory. The linker flag makes
# Debian's libjemalloc the module's first DT_NEEDED: valkey-server links the
# system jemalloc and loads modules with RTLD_DEEPBIND, so without it the
# module frees with glibc what libstdc++ allocated with jemalloc and the
# server aborts on load (upstream valkey-search#559).
jobs=$(nproc)
quiet chroot "$build" sh -c "cd $tree && CMAKE_EXTRA_ARGS='-DBUILD_UNIT_TESTS=OFF -DLIBHIGHWAYHASH_LIBDIR=/usr/lib/x86_64-linux-gnu -DCMAKE_SHARED_LINKER_FLAGS=-Wl,--no-as-needed,/usr/lib/x86_64-linux-gnu/libjemalloc.so.2' ./build.sh --use-system-modules --configure --no-build --jobs=$jobs"
# Only the module: build.sh's default target also builds vmsdk's benchmarks.
quiet chroot "$build" ninja -C "$tree/.build-release" -j "$jobs" libsearch
module="$build$tree/.build-release/libsearch.so"
strip --strip-debug "$module"

# The libraries the module links, as sid's packages that hold them.
mapfile -t libs < <(chroot "$build" ldd "$tree/.build-release/libsearch.so" | awk '$2 == "=>" && $3 ~ /^\// {print $3}')
pkgs=()
for lib in "${libs[@]}"; do
	real=$(chroot "$build" readlink -f "$lib")
	pkg=$(chroot "$build" dpkg -S "$real" 2>/dev/null || chroot "$build" dpkg -S "${real#/usr}" 2>/dev/null) || {
		echo "no package holds $real, which the module links" >&2
		exit 1
	}
	pkgs+=("${pkg%%:*}")
done
mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | sort -u)
valkey_version=$(chroot "$build" dpkg-query -W -f '${Version}' valkey-server)
umount "$build/proc"

step "debootstrap sid (runtime root: valkey-server ${valkey_version} and ${#pkgs[@]} library packages)"
sid_root "$run"
# The packages' scripts (systemd-tmpfiles, for the valkey user) need /proc.
mount -t proc proc "$run/proc"
apt_in "$run" update
apt_in "$run" install --no-install-recommends valkey-server "${pkgs[@]}"
umount "$run/proc"
rm -rf "$run"/var/lib/apt/lists/* "$run"/var/cache/apt/*.bin "$run"/var/cache/apt/archives/*.deb
# Valkey 9.1 refuses a module without execute permission ("It does not
# have execute permissions", module.c), and aborts.
install -D -m 0755 "$module" "$run/usr/lib/valkey/libsearch.so"
install -m 0755 "$here/entrypoint.sh" "$run/usr/local/bin/searchbench-valkey"
secs=$(($(date +%s) - started))
tar -C "$run" -c . | docker import \
	--change 'ENTRYPOINT ["/usr/local/bin/searchbench-valkey"]' \
	--change 'CMD ["valkey-server"]' \
	--change 'EXPOSE 6379' \
	--change 'LABEL org.searchbench.image=valkey-search' \
	--change "LABEL org.searchbench.recipe=valkey-search-$recipe" \
	--change "LABEL org.searchbench.valkey-server=$valkey_version" \
	--change "LABEL org.searchbench.valkey-search=$version" \
	--change "LABEL org.searchbench.build-seconds=$secs" \
	- "$tag" >/dev/null
echo "built $tag in $secs s (valkey-server $valkey_version, valkey-search $version)"
