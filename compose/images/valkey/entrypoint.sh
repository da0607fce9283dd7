#!/bin/sh
# The entry point of searchbench/valkey-search, made to take what the
# official valkey/valkey-bundle image takes (its bundle-docker-entrypoint.sh):
# a valkey-server command gets --loadmodule for every module in
# /usr/lib/valkey, then $VALKEY_EXTRA_FLAGS (module settings such as
# --search.reader-threads must follow the module's loading). Protected mode
# is off, as in the official images run without a configuration file: the
# server is reached through the container's published port, not loopback.
set -e
if [ "${1#-}" != "$1" ]; then
	set -- valkey-server "$@"
fi
if [ "$1" = valkey-server ]; then
	shift
	set -- valkey-server --protected-mode no "$@"
	for module in /usr/lib/valkey/*.so; do
		[ -e "$module" ] && set -- "$@" --loadmodule "$module"
	done
	# Unquoted: the variable holds several flags.
	# shellcheck disable=SC2086
	set -- "$@" $VALKEY_EXTRA_FLAGS
fi
exec "$@"
