#!/usr/bin/env bash
# Builds searchbench/postgres:15, a PostgreSQL 15 image made from Debian
# bookworm's own packages, for machines that cannot pull the official
# postgres image. It uses only Debian's package archive: debootstrap makes a
# minimal root filesystem with postgresql-15, `docker import` brings it in.
#   bash compose/images/postgres/build.sh [tag]
# A searchbench/pgvector tag is the same image with pgvector added: its
# recipe is pgvector/build.sh, which builds this one first.
set -euo pipefail
tag=${1:-searchbench/postgres:15}
here=$(cd "$(dirname "$0")" && pwd)
case "$tag" in
searchbench/pgvector:*) exec bash "$here/pgvector/build.sh" "$tag" ;;
esac
# The recipe's version, kept as a label: an image an older recipe built is
# built again (2: stops on SIGINT).
recipe=2
if [ "$(docker image inspect -f '{{index .Config.Labels "org.searchbench.recipe"}}' "$tag" 2>/dev/null)" = "$recipe" ]; then
	echo "image $tag is already present"
	exit 0
fi
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
debootstrap --variant=minbase --include=postgresql-15,locales "${DEBIAN_SUITE:-bookworm}" "$root" "$mirror" >/dev/null
# The package made a cluster under /var/lib/postgresql/15/main; the entry
# point makes its own, with the password it is given.
rm -rf "$root/var/lib/postgresql/15" "$root/var/cache/apt/archives/"*.deb
install -m 0755 "$here/entrypoint.sh" "$root/usr/local/bin/searchbench-postgres"
# docker import takes no STOPSIGNAL change (only CMD, ENTRYPOINT, ENV,
# EXPOSE, LABEL, ONBUILD, USER, VOLUME, WORKDIR), so a one-line build on top
# of the imported filesystem sets it; the build uses the local image only.
# The imported filesystem's tag is this build's own ($$): two builds of the
# same image at once (the launcher's, and the pgvector recipe's build of its
# base) must not remove each other's.
base="$tag-rootfs-$$"
tar -C "$root" -c . | docker import \
	--change 'ENTRYPOINT ["/usr/local/bin/searchbench-postgres"]' \
	--change 'ENV LANG=C.UTF-8' \
	--change 'EXPOSE 5432' \
	--change 'LABEL org.searchbench.image=postgres' \
	- "$base" >/dev/null
printf 'FROM %s\nSTOPSIGNAL SIGINT\nLABEL org.searchbench.recipe=%s\n' "$base" "$recipe" | docker build -q -t "$tag" - >/dev/null
docker rmi "$base" >/dev/null
echo "built $tag"
