#!/bin/sh
# Entry point of searchbench's locally built PostgreSQL image. It honours the
# same variables as the official postgres image (POSTGRES_PASSWORD,
# POSTGRES_USER, POSTGRES_DB), so the launcher treats both alike.
set -eu
PGBIN=/usr/lib/postgresql/15/bin
PGDATA=${PGDATA:-/var/lib/postgresql/data}
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
POSTGRES_USER=${POSTGRES_USER:-postgres}
POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
	mkdir -p "$PGDATA" /run/postgresql
	chown -R postgres:postgres "$PGDATA" /run/postgresql
	pw=$(mktemp)
	printf '%s\n' "$POSTGRES_PASSWORD" > "$pw"
	chown postgres "$pw"
	su postgres -s /bin/sh -c "$PGBIN/initdb -D '$PGDATA' -U '$POSTGRES_USER' --pwfile='$pw' --auth=scram-sha-256 -E UTF8 --locale=C.UTF-8" >/dev/null
	rm -f "$pw"
	echo "host all all 0.0.0.0/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
	if [ "$POSTGRES_DB" != postgres ]; then
		su postgres -s /bin/sh -c "$PGBIN/postgres --single -D '$PGDATA' postgres" <<SQL >/dev/null
CREATE DATABASE "$POSTGRES_DB";
SQL
	fi
fi
# PostgreSQL itself is PID 1 (setpriv execs it; su would stay as a parent
# that ignores signals), so `docker stop` reaches it. The image stops it with
# SIGINT, as the official image does (its Dockerfile: STOPSIGNAL SIGINT): a
# fast shutdown. SIGTERM is PostgreSQL's smart shutdown, which waits for
# every session to end — with a benchmark's pool open, until Docker's stop
# timeout kills it.
exec setpriv --reuid=postgres --regid=postgres --init-groups "$PGBIN/postgres" -D "$PGDATA" -c listen_addresses='*' "$@"
