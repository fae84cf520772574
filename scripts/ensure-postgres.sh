#!/usr/bin/env bash
# ensure-postgres.sh — make sure PostgreSQL server binaries (initdb, pg_ctl, postgres)
# are installed, and print the directory that holds them on stdout.
#
#   scripts/ensure-postgres.sh            # prints e.g. /usr/lib/postgresql/15/bin
#
# Looks for /usr/lib/postgresql/*/bin/initdb (Debian/Ubuntu layout) and takes the
# newest version found. When there is none, installs Debian's `postgresql`
# package with apt-get (as root, or through sudo when not root and sudo exists).
# Shared by scripts/localpg.sh (make up) and `make test` (the Go test harness
# starts its own throwaway server and needs the same binaries).
#
# Environment: PLAGD_PG_BIN=/path/to/bin skips the search and the install.
set -euo pipefail

say() { echo "ensure-postgres: $*" >&2; }

find_bin() {
  if [ -n "${PLAGD_PG_BIN:-}" ]; then
    [ -x "$PLAGD_PG_BIN/initdb" ] || { say "PLAGD_PG_BIN=$PLAGD_PG_BIN has no executable initdb"; return 1; }
    echo "$PLAGD_PG_BIN"; return 0
  fi
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | while read -r b; do
        [ -x "$b/initdb" ] && [ -x "$b/pg_ctl" ] && echo "$b"; done | tail -1)
  [ -n "$d" ] || return 1
  echo "$d"
}

if bin=$(find_bin); then
  echo "$bin"
  exit 0
fi
[ -z "${PLAGD_PG_BIN:-}" ] || exit 1

if ! command -v apt-get >/dev/null 2>&1; then
  say "PostgreSQL server binaries not found (no /usr/lib/postgresql/*/bin/initdb) and apt-get is not available."
  say "Install the PostgreSQL server (version 13 or newer) with your package manager, then set"
  say "PLAGD_PG_BIN to the folder holding initdb and pg_ctl (e.g. PLAGD_PG_BIN=\$(pg_config --bindir))."
  exit 1
fi

as_root=()
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
    say "PostgreSQL server binaries not found; installing Debian's 'postgresql' package with sudo apt-get."
  else
    say "PostgreSQL server binaries not found, and installing them needs root."
    say "Run as root:  apt-get update && apt-get install -y postgresql   (or install sudo), then try again."
    exit 1
  fi
else
  say "PostgreSQL server binaries not found; installing Debian's 'postgresql' package with apt-get."
fi

"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2

if bin=$(find_bin); then
  say "installed PostgreSQL server binaries in $bin"
  echo "$bin"
  exit 0
fi
say "apt-get reports 'postgresql' installed but there is no /usr/lib/postgresql/*/bin/initdb;"
say "reinstall the server package (apt-get install --reinstall postgresql-<version>) or set PLAGD_PG_BIN."
exit 1
