#!/usr/bin/env bash
# localpg.sh — a project-local PostgreSQL for `make up` and manual work.
#
#   scripts/localpg.sh start    # install the server if missing, initdb once, start; prints DATABASE_URL
#   scripts/localpg.sh stop     # fast shutdown (no-op when not running)
#   scripts/localpg.sh status   # "running" (exit 0) or "stopped" (exit 3)
#   scripts/localpg.sh url      # prints DATABASE_URL
#   scripts/localpg.sh psql ... # psql connected to it; extra arguments go to psql
#
# Layout: the cluster lives in ./.data/pg of the checkout:
#   .data/pg/data         the data directory (initdb), user "plagd" (superuser), database "plagd"
#   .data/pg/run          the unix socket (.s.PGSQL.<port>)
#   .data/pg/postgres.log the server log
# Connections: unix socket only (listen_addresses = ''), trust authentication for
# local socket connections, TCP refused. The port (default 54329, PLAGD_PG_PORT
# overrides it) only names the socket file, so it never collides with another
# server on this machine.
#
# PostgreSQL refuses to run as root: when this script runs as root, the server
# runs as the `postgres` system user. That user must be able to reach the cluster,
# so when the checkout is not traversable by it (under /root, or a 0700 folder),
# or its path is too long for a unix socket or has unusual characters, the
# cluster is kept in /var/tmp/plagd-pg-<hash of the checkout path> and
# ./.data/pg is a symlink to it. The printed DATABASE_URL names the real path.
#
# Environment: PLAGD_PG_PORT (socket port, default 54329), PLAGD_PG_BIN (server
# binaries folder; default: found or installed by scripts/ensure-postgres.sh).
set -euo pipefail

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
ROOT=$(cd "$SCRIPTS/.." && pwd -P)
DATA_PARENT=$ROOT/.data
LINK=$DATA_PARENT/pg
PORT_DEFAULT=${PLAGD_PG_PORT:-54329}
DB=plagd
DBUSER=plagd

say() { echo "localpg: $*" >&2; }
die() { echo "localpg: error: $*" >&2; exit 1; }

case "$PORT_DEFAULT" in
  ''|*[!0-9]*) die "PLAGD_PG_PORT must be a number, got '$PORT_DEFAULT'" ;;
esac

IS_ROOT=0; [ "$(id -u)" = 0 ] && IS_ROOT=1
SERVER_USER=$(id -un)
[ "$IS_ROOT" = 1 ] && SERVER_USER=postgres

# as_server CMD...: runs CMD as the user that owns and runs the cluster.
as_server() {
  if [ "$IS_ROOT" = 1 ]; then
    # from / so that the server user never needs access to the current folder
    (cd / && runuser -u "$SERVER_USER" -- "$@")
  else
    "$@"
  fi
}

# pg_home: the real (symlink-resolved) cluster folder, if it exists.
pg_home() {
  [ -e "$LINK" ] || return 1
  readlink -f "$LINK"
}

# socket_port HOME: the port of the running server (from postmaster.pid), else the configured one.
socket_port() {
  local home=$1 p=""
  if [ -f "$home/data/postmaster.pid" ]; then
    p=$(sed -n 4p "$home/data/postmaster.pid" 2>/dev/null || true)
  fi
  case "$p" in ''|*[!0-9]*) p=$PORT_DEFAULT ;; esac
  echo "$p"
}

url_for() {
  local home=$1
  echo "postgres://$DBUSER@/$DB?host=$home/run&port=$(socket_port "$home")&sslmode=disable"
}

pg_bin() {
  if [ -z "${PG_BIN:-}" ]; then
    PG_BIN=$("$SCRIPTS/ensure-postgres.sh") || die "PostgreSQL server binaries are not available (see above)"
  fi
  echo "$PG_BIN"
}

is_running() {
  local home=$1
  [ -f "$home/data/PG_VERSION" ] || return 1
  # pg_ctl status: 0 running, 3 not running, 4 no accessible data directory
  as_server "$PG_BIN/pg_ctl" -D "$home/data" status >/dev/null 2>&1
}

ensure_server_user() {
  [ "$IS_ROOT" = 1 ] || return 0
  if ! id -u "$SERVER_USER" >/dev/null 2>&1; then
    say "creating the system user '$SERVER_USER' to run the server (PostgreSQL refuses to run as root)"
    useradd --system --home-dir /var/lib/postgresql --shell /usr/sbin/nologin "$SERVER_USER" \
      || die "could not create the user '$SERVER_USER'"
  fi
}

# choose_home: creates the cluster folder (in the checkout, or in /var/tmp with a
# symlink) and echoes its real path.
choose_home() {
  mkdir -p "$DATA_PARENT"
  local inside=$DATA_PARENT/pg reason=""
  # the longest socket path is <home>/run/.s.PGSQL.<port>.lock; the kernel limit is 107 bytes
  if [ $(( ${#inside} + 30 )) -gt 100 ]; then
    reason="the checkout path is too long for a unix socket"
  elif [[ ! "$inside" =~ ^[A-Za-z0-9._/+-]+$ ]]; then
    reason="the checkout path has characters a connection URL would need escaped"
  elif [ "$IS_ROOT" = 1 ] && ! as_server test -x "$DATA_PARENT" 2>/dev/null; then
    reason="the user '$SERVER_USER' cannot reach $DATA_PARENT (a parent folder is not traversable)"
  fi
  if [ -z "$reason" ]; then
    mkdir -p "$inside"
    echo "$inside"
    return
  fi
  local hash ext
  hash=$(printf '%s' "$ROOT" | sha256sum | cut -c1-12)
  ext=/var/tmp/plagd-pg-$hash
  say "$reason: keeping the cluster in $ext (symlinked from .data/pg)"
  if [ -e "$ext" ]; then
    # /var/tmp is shared: reuse the folder only when it is ours
    [ -d "$ext" ] && [ ! -L "$ext" ] && [ "$(stat -c %U "$ext")" = "$SERVER_USER" ] \
      || die "$ext exists but is not a folder owned by $SERVER_USER; remove it and try again"
  else
    mkdir -m 0755 "$ext"
    [ "$IS_ROOT" = 1 ] && chown "$SERVER_USER:" "$ext"
  fi
  ln -sfn "$ext" "$LINK"
  echo "$ext"
}

cmd_start() {
  local bin home
  bin=$(pg_bin); PG_BIN=$bin
  ensure_server_user
  if home=$(pg_home); then
    [ -d "$home" ] || die ".data/pg points at $home, which does not exist; remove .data/pg and try again"
  else
    [ -L "$LINK" ] && die ".data/pg is a dangling symlink ($(readlink "$LINK")); remove it and try again"
    home=$(choose_home)
  fi

  if [ "$IS_ROOT" = 1 ]; then
    # the server user owns the cluster folder; root keeps owning the checkout
    chown "$SERVER_USER:" "$home"
    chmod 0755 "$home"
  fi

  if [ ! -f "$home/data/PG_VERSION" ]; then
    [ -z "$(ls -A "$home/data" 2>/dev/null)" ] \
      || die "$home/data exists but is not a PostgreSQL data directory; move it away and try again"
    say "initialising a new cluster in $home/data (user $DBUSER, database $DB)"
    as_server mkdir -p "$home/run"
    as_server "$bin/initdb" -D "$home/data" -U "$DBUSER" --encoding=UTF8 --no-locale \
      --auth=trust >"$home/initdb.log" 2>&1 \
      || { cat "$home/initdb.log" >&2; die "initdb failed"; }
    # plagd's settings go into an included file, so postgresql.conf stays stock
    as_server tee -a "$home/data/postgresql.conf" >/dev/null <<EOF

# --- added by scripts/localpg.sh ---
include_if_exists = 'plagd-local.conf'
EOF
    as_server tee "$home/data/plagd-local.conf" >/dev/null <<EOF
# Written by scripts/localpg.sh. Unix socket only; no TCP listener.
listen_addresses = ''
unix_socket_directories = '$home/run'
port = $PORT_DEFAULT
EOF
    # any TCP connection is refused even if listen_addresses is changed later
    as_server tee "$home/data/pg_hba.conf" >/dev/null <<EOF
# Written by scripts/localpg.sh: trust on the local unix socket, nothing else.
# TYPE  DATABASE  USER  ADDRESS  METHOD
local   all       all            trust
EOF
  fi
  as_server mkdir -p "$home/run"

  if is_running "$home"; then
    say "already running ($home/data)"
    url_for "$home"
    return 0
  fi

  say "starting PostgreSQL ($(basename "$(dirname "$bin")")) on unix socket $home/run, port $PORT_DEFAULT"
  if ! as_server "$bin/pg_ctl" -D "$home/data" -l "$home/postgres.log" -w -t 60 \
        -o "-p $PORT_DEFAULT -k $home/run" start >/dev/null; then
    echo "---- last lines of $home/postgres.log ----" >&2
    tail -n 20 "$home/postgres.log" >&2 || true
    die "PostgreSQL did not start"
  fi

  local url; url=$(url_for "$home")
  if ! as_server "$bin/psql" "postgres://$DBUSER@/postgres?host=$home/run&port=$PORT_DEFAULT" -qtAX \
        -c "select 1 from pg_database where datname = '$DB'" | grep -q 1; then
    as_server "$bin/createdb" -h "$home/run" -p "$PORT_DEFAULT" -U "$DBUSER" "$DB" \
      || die "createdb $DB failed"
    say "created database $DB"
  fi
  say "running; logs in $home/postgres.log"
  echo "$url"
}

cmd_stop() {
  local home
  if ! home=$(pg_home) || [ ! -f "$home/data/PG_VERSION" ]; then
    say "no cluster in .data/pg; nothing to stop"
    return 0
  fi
  PG_BIN=$(pg_bin)
  if ! is_running "$home"; then
    say "not running"
    return 0
  fi
  as_server "$PG_BIN/pg_ctl" -D "$home/data" -m fast -w -t 60 stop >/dev/null
  say "stopped"
}

cmd_status() {
  local home
  if ! home=$(pg_home) || [ ! -f "$home/data/PG_VERSION" ]; then
    echo "stopped (no cluster in .data/pg; 'scripts/localpg.sh start' creates one)"
    return 3
  fi
  PG_BIN=$(pg_bin)
  if is_running "$home"; then
    echo "running: $(url_for "$home")"
    echo "data:    $home/data"
    echo "log:     $home/postgres.log"
    return 0
  fi
  echo "stopped (data in $home/data)"
  return 3
}

cmd_url() {
  local home
  if home=$(pg_home); then
    url_for "$home"
  else
    # not created yet: the path the cluster will have when it fits in the checkout
    say "no cluster yet ('scripts/localpg.sh start' creates it); this is where it will be:"
    url_for "$DATA_PARENT/pg"
  fi
}

cmd_psql() {
  local home url
  home=$(pg_home) || die "no cluster; run 'scripts/localpg.sh start' first"
  url=$(url_for "$home")
  if command -v psql >/dev/null 2>&1; then
    exec psql "$url" "$@"
  fi
  exec "$(pg_bin)/psql" "$url" "$@"
}

usage() {
  sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

case "${1:-}" in
  start)  shift; cmd_start "$@" ;;
  stop)   shift; cmd_stop "$@" ;;
  status) shift; cmd_status "$@" ;;
  url)    shift; cmd_url "$@" ;;
  psql)   shift; cmd_psql "$@" ;;
  -h|--help|help) usage ;;
  *) usage; exit 2 ;;
esac
