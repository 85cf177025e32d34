#!/usr/bin/env bash
# storage-bench against a private PostgreSQL 15 (Debian's `postgresql`), side by side with
# SQLite: starts a server with default settings (fsync on) in a temporary folder on a free
# loopback port, runs `storage-bench --store` on a fresh database, then stops the server.
# As root, PostgreSQL runs as the `postgres` user. Arguments go to storage-bench
# (--quick, --three-only, --profile-postgres). PROFILE=FILE records the run with `perf record -a -g`;
# SERVER_OPTIONS adds postgres options (-c name=value ...). KEEP_LOG=FILE copies the server's log there.
# STORAGE_BENCH=PATH runs that storage-bench binary instead of building one (before/after runs).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/opt/swift/usr/bin:$PATH
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "PostgreSQL's server programs are missing: apt-get install -y postgresql" >&2; exit 1; }
bench=${STORAGE_BENCH:-.build/release/storage-bench}
[ -n "${STORAGE_BENCH:-}" ] || swift build -c release --product storage-bench >&2

dir=$(mktemp -d /tmp/storage-bench-pg-XXXXXX)
chmod 755 "$dir"
as_server() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then
  chown postgres: "$dir"
  as_server() { runuser -u postgres -- "$@"; }
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
stop() {
  as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  [ -n "${KEEP_LOG:-}" ] && cp "$dir/server.log" "$KEEP_LOG"
  rm -rf "$dir"
}
trap stop EXIT
as_server "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-sync -E UTF8 >/dev/null
as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 ${SERVER_OPTIONS:-}" start >/dev/null
as_server "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres bench
if [ -n "${PROFILE:-}" ]; then
  # PROFILE=FILE: the whole machine's stacks while the bench runs (PostgreSQL's backends included).
  perf record -a -g -o "$PROFILE" -- "$bench" --store "postgresql://postgres@127.0.0.1:$port/bench" "$@"
else
  "$bench" --store "postgresql://postgres@127.0.0.1:$port/bench" "$@"
fi
