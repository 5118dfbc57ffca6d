#!/usr/bin/env bash
# Make the running PostgreSQL provide the extensions the test suite needs:
#   vector  (pgvector) - required; not packaged for Debian bookworm, so it is
#                        built from Debian trixie's *source* package
#   pgtap + pg_prove   - required; Debian packages postgresql-<ver>-pgtap and
#                        libtap-parser-sourcehandler-pgtap-perl
#   pg_cron            - optional (migrations guard it); postgresql-<ver>-cron,
#                        preloaded via shared_preload_libraries, with
#                        cron.database_name = 'journal_cron'
#
# `npm test` runs this first on every run, so the common path is a single psql
# query and exits immediately when everything is present. Installing needs root
# on Debian with the server on this machine; otherwise the script prints what is
# missing and how to install it.
#
# Environment: PGHOST (127.0.0.1), PGPORT (5432), PGUSER (postgres, must be a
# superuser to configure pg_cron), PGPASSWORD/.pgpass as usual for libpq,
# PROVISION_LOG (/tmp/provision-postgres.log: apt and build output).
#
# System changes it may make (only when something is missing):
#   - /etc/apt/sources.list.d/trixie-src.list: a deb-src-only trixie entry on
#     the mirror this machine already uses, plus /etc/apt/preferences.d/
#     trixie-src-only pinning trixie to -1 so no trixie binary is ever installed
#   - apt-get install of the Debian packages above and postgresql-server-dev-<ver>
#   - make install of pgvector into the server's extension directories
#   - ALTER SYSTEM for shared_preload_libraries / cron.database_name and ONE
#     restart of the cluster when those changed; CREATE DATABASE journal_cron
#
# Exit status: 0 when vector, pgtap and pg_prove are available (pg_cron problems
# are warnings only), non-zero otherwise.
set -euo pipefail

export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
export PGCONNECT_TIMEOUT="${PGCONNECT_TIMEOUT:-5}"
readonly CRON_DB=journal_cron
readonly LOG="${PROVISION_LOG:-/tmp/provision-postgres.log}"
readonly TRIXIE_LIST=/etc/apt/sources.list.d/trixie-src.list
readonly TRIXIE_PIN=/etc/apt/preferences.d/trixie-src-only

info() { echo "provision-postgres: $*"; }
warn() { echo "provision-postgres: WARNING: $*" >&2; }
die() { echo "provision-postgres: ERROR: $*" >&2; exit 1; }

# -X: ignore ~/.psqlrc, which could change the output format.
psql_admin() { psql -X -q -At -v ON_ERROR_STOP=1 -d postgres "$@"; }

# Run a command with its output appended to $LOG; on failure show the log tail.
run_logged() {
  local desc=$1; shift
  echo "+ $*" >>"$LOG"
  if ! "$@" >>"$LOG" 2>&1; then
    warn "$desc failed; last lines of $LOG:"
    tail -n 30 "$LOG" >&2
    return 1
  fi
}

# ---------------------------------------------------------------- state ----

# One query for everything the no-op path needs. Sets AVAILABLE, PRELOAD,
# CRON_DB_SOURCE, CRON_DB_EXISTS, PG_MAJOR, CONFIG_FILE.
read_state() {
  local row
  row=$(psql_admin -F $'\x1f' -c "
    select
      coalesce((select string_agg(name, ',') from pg_available_extensions
                where name in ('vector', 'pgtap', 'pg_cron')), ''),
      current_setting('shared_preload_libraries'),
      coalesce((select source from pg_settings where name = 'cron.database_name'), ''),
      exists(select 1 from pg_database where datname = coalesce(
        (select setting from pg_settings
          where name = 'cron.database_name' and source <> 'default'), '$CRON_DB')),
      current_setting('server_version_num')::int / 10000,
      coalesce((select setting from pg_settings where name = 'config_file'), '')
  ") || return 1
  IFS=$'\x1f' read -r AVAILABLE PRELOAD CRON_DB_SOURCE CRON_DB_EXISTS PG_MAJOR CONFIG_FILE <<<"$row"
}

has_ext() { [[ ",$AVAILABLE," == *",$1,"* ]]; }
has_pg_prove() { command -v pg_prove >/dev/null; }
# "a, \"pg_cron\"" -> ",a,pg_cron," before matching.
lists_pg_cron() { local l=",${1//[ \"]/},"; [[ $l == *,pg_cron,* ]]; }

cron_ok() {
  has_ext pg_cron && lists_pg_cron "$PRELOAD" &&
    [[ -n $CRON_DB_SOURCE && $CRON_DB_SOURCE != default && $CRON_DB_EXISTS == t ]]
}

required_ok() { has_ext vector && has_ext pgtap && has_pg_prove; }

# Installing only makes sense as root on Debian, for a server on this machine.
why_cannot_install() {
  if [[ $(id -u) != 0 ]]; then echo "not running as root"
  elif [[ ! -f /etc/debian_version ]] || ! command -v apt-get >/dev/null; then echo "not a Debian system"
  elif [[ ! $PGHOST =~ ^(localhost|127\.[0-9.]+|::1|/.*)$ ]]; then echo "PGHOST=$PGHOST is not this machine"
  elif [[ ! $CONFIG_FILE =~ ^/etc/postgresql/[^/]+/[^/]+/postgresql\.conf$ || ! -f $CONFIG_FILE ]]; then
    echo "the server is not a Debian-packaged cluster on this machine (or $PGUSER is not a superuser)"
  fi
}

print_instructions() {
  local v=$PG_MAJOR
  has_ext vector || cat >&2 <<EOF
  - vector (pgvector): on Debian trixie or newer / Ubuntu 24.04+: apt-get install postgresql-$v-pgvector;
      on Debian bookworm run this script as root (it builds trixie's pgvector source package);
      otherwise build it: https://github.com/pgvector/pgvector#installation
EOF
  has_ext pgtap || echo "  - pgtap: apt-get install postgresql-$v-pgtap   (or https://pgtap.org)" >&2
  has_pg_prove || echo "  - pg_prove: apt-get install libtap-parser-sourcehandler-pgtap-perl   (or: cpan TAP::Parser::SourceHandler::pgTAP)" >&2
  cron_ok || cat >&2 <<EOF
  - pg_cron (optional): apt-get install postgresql-$v-cron, then as a superuser:
      ALTER SYSTEM SET shared_preload_libraries = '<existing entries>, pg_cron';
      ALTER SYSTEM SET cron.database_name = '$CRON_DB';
      restart PostgreSQL, then: CREATE DATABASE $CRON_DB;
EOF
}

# ------------------------------------------------------------------ apt ----

APT_UPDATED=0
apt_update_once() {
  (( APT_UPDATED )) && return 0
  APT_UPDATED=1
  info "apt-get update"
  # A failing mirror is reported here; the install that needs it fails later.
  run_logged "apt-get update" apt-get update || true
}

apt_install() {
  info "installing $* (output in $LOG)"
  apt_update_once
  run_logged "apt-get install $*" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "$@"
}

# URI of the first enabled "deb" entry for this release's suite, from either
# one-line (*.list) or deb822 (*.sources) files.
debian_mirror() {
  local codename f
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [[ -n $codename ]] || return 1
  {
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [[ -f $f ]] || continue
      awk -v s="$codename" '$1 == "deb" {
        i = 2
        if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
        if ($(i + 1) == s) print $i
      }' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
      [[ -f $f ]] || continue
      awk -v s="$codename" 'BEGIN { RS = ""; FS = "\n" } {
        types = uris = suites = ""; enabled = "yes"
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^[ \t]*#/) continue
          key = tolower($i); sub(/:.*/, "", key)
          val = $i; sub(/^[^:]*:[ \t]*/, "", val)
          if (key == "types") types = val
          else if (key == "uris") uris = val
          else if (key == "suites") suites = val
          else if (key == "enabled") enabled = tolower(val)
        }
        if (enabled != "no" && (" " types " ") ~ / deb / && (" " suites " ") ~ (" " s " ")) {
          split(uris, u, /[ \t]+/); print u[1]
        }
      }' "$f"
    done
  } | sed -n '1{s:/*$::;p}' | grep .
}

# Written only when changed, so repeated runs leave apt alone.
write_if_changed() {
  local path=$1 content=$2
  [[ -f $path && $(<"$path") == "$content" ]] && return 0
  info "writing $path"
  printf '%s\n' "$content" >"$path"
}

# ----------------------------------------------------------- extensions ----

# Must run before the first apt-get update so trixie's Sources index is fetched.
add_trixie_sources() {
  local mirror keyring=/usr/share/keyrings/debian-archive-keyring.gpg opts=""
  mirror=$(debian_mirror) ||
    die "could not find this machine's Debian mirror in /etc/apt/sources.list{,.d/*.list,.d/*.sources}; cannot fetch pgvector's source"
  [[ -f $keyring ]] && opts="[signed-by=$keyring] "
  write_if_changed "$TRIXIE_LIST" "# Written by scripts/provision-postgres.sh: trixie *source* packages only (to build pgvector).
deb-src ${opts}${mirror} trixie main"
  # deb-src entries cannot provide binaries; the pin also keeps trixie binaries
  # out should a trixie "deb" line ever be added (they would pull a newer libc).
  write_if_changed "$TRIXIE_PIN" "# Written by scripts/provision-postgres.sh: trixie is configured for deb-src only.
Package: *
Pin: release n=trixie
Pin-Priority: -1"
}

install_pgvector() {
  local pg_config=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config src
  apt_install "postgresql-server-dev-$PG_MAJOR" dpkg-dev make gcc ||
    die "could not install the build dependencies for pgvector"
  WORKDIR=$(mktemp -d /tmp/provision-pgvector.XXXXXX)
  info "building pgvector from Debian trixie's source package (output in $LOG)"
  (cd "$WORKDIR" && run_logged "apt-get source pgvector/trixie" apt-get source pgvector/trixie) ||
    die "could not download pgvector's source from trixie (see $TRIXIE_LIST)"
  src=$(find "$WORKDIR" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)
  [[ -n $src ]] || die "apt-get source pgvector produced no source directory in $WORKDIR"
  # OPTFLAGS= keeps the build portable (older pgvector releases default to -march=native).
  run_logged "building pgvector" make -C "$src" PG_CONFIG="$pg_config" OPTFLAGS= ||
    die "building pgvector failed"
  run_logged "installing pgvector" make -C "$src" PG_CONFIG="$pg_config" OPTFLAGS= install ||
    die "installing pgvector failed"
}

install_pgtap() {
  local pkgs=()
  has_ext pgtap || pkgs+=("postgresql-$PG_MAJOR-pgtap")
  has_pg_prove || pkgs+=(libtap-parser-sourcehandler-pgtap-perl)
  apt_install "${pkgs[@]}" || die "could not install ${pkgs[*]}"
}

# Value the config files will give a setting after the next restart (pending
# ALTER SYSTEM included); falls back to the live value when set explicitly.
configured_setting() {
  psql_admin -c "
    select coalesce(
      (select setting from pg_file_settings
        where name = '$1' and (error is null or error = 'setting could not be applied')
        order by seqno desc limit 1),
      (select setting from pg_settings where name = '$1' and source <> 'default'), '')"
}

restart_cluster() {
  local ver cluster
  [[ $CONFIG_FILE =~ ^/etc/postgresql/([^/]+)/([^/]+)/postgresql\.conf$ ]] || return 1
  ver=${BASH_REMATCH[1]} cluster=${BASH_REMATCH[2]}
  info "restarting PostgreSQL cluster $ver/$cluster so that pg_cron is loaded"
  if [[ -d /run/systemd/system ]]; then
    # Under systemd, let it do the restart so it keeps tracking the service.
    run_logged "restarting PostgreSQL" pg_ctlcluster "$ver" "$cluster" restart || return 1
  else
    run_logged "restarting PostgreSQL" pg_ctlcluster --skip-systemctl-redirect "$ver" "$cluster" restart || return 1
  fi
  local i
  for ((i = 0; i < 120; i++)); do
    psql_admin -c 'select 1' >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  die "PostgreSQL did not accept connections within 60s after the restart (see /var/log/postgresql/)"
}

# Called in an `||` context, where set -e is off: every step checks itself.
install_pg_cron() {
  has_ext pg_cron || apt_install "postgresql-$PG_MAJOR-cron" || return 1
  local restart=0 libs quoted="" lib parts
  if ! lists_pg_cron "$PRELOAD"; then
    restart=1
    libs=$(configured_setting shared_preload_libraries) || return 1
    if ! lists_pg_cron "$libs"; then
      IFS=, read -ra parts <<<"${libs//[ \"]/}"
      for lib in "${parts[@]}" pg_cron; do
        [[ -n $lib ]] && quoted+="${quoted:+, }'${lib//\'/\'\'}'"
      done
      info "ALTER SYSTEM SET shared_preload_libraries = $quoted"
      psql_admin -c "ALTER SYSTEM SET shared_preload_libraries = $quoted" || return 1
    fi
  fi
  if [[ -z $(configured_setting cron.database_name) ]]; then
    info "ALTER SYSTEM SET cron.database_name = '$CRON_DB'"
    # Before PostgreSQL 17, ALTER SYSTEM rejects a custom setting unknown to the
    # session; SET first creates the placeholder (pg_cron is not loaded yet).
    psql_admin -c "SET cron.database_name = '$CRON_DB'" \
      -c "ALTER SYSTEM SET cron.database_name = '$CRON_DB'" || return 1
    restart=1
  elif [[ -z $CRON_DB_SOURCE || $CRON_DB_SOURCE == default ]]; then
    restart=1 # set in the config files but not live yet
  fi
  if (( restart )); then
    restart_cluster || return 1
  fi
  read_state || return 1
  if [[ $CRON_DB_EXISTS != t ]]; then
    local db
    db=$(psql_admin -c "select current_setting('cron.database_name', true)") || return 1
    info "creating database ${db:-$CRON_DB}"
    psql_admin -c "CREATE DATABASE \"${db:-$CRON_DB}\"" || return 1
  fi
}

# ----------------------------------------------------------------- main ----

main() {
  command -v psql >/dev/null ||
    die "psql not found; install the PostgreSQL client (Debian: apt-get install postgresql-client)"
  read_state ||
    die "cannot query PostgreSQL at $PGHOST:$PGPORT as $PGUSER; is the server running (Debian: pg_lsclusters; pg_ctlcluster <version> main start)?"

  if required_ok && cron_ok; then
    info "vector, pgtap, pg_prove and pg_cron are available"
    return 0
  fi

  local why
  why=$(why_cannot_install)
  if [[ -n $why ]]; then
    if required_ok; then
      warn "pg_cron is not fully set up and cannot be installed ($why):"
      print_instructions
      return 0
    fi
    echo "provision-postgres: ERROR: missing PostgreSQL extensions/tools, cannot install them ($why):" >&2
    print_instructions
    echo "provision-postgres: install the above (or run: sudo $0) and re-run." >&2
    return 1
  fi

  # Serialise concurrent runs (e.g. two `npm test`s), then re-check.
  exec 9>/tmp/provision-postgres.lock
  flock 9
  read_state || die "lost the connection to PostgreSQL"
  : >"$LOG"

  if ! has_ext vector; then
    add_trixie_sources
    install_pgvector
  fi
  if ! has_ext pgtap || ! has_pg_prove; then
    install_pgtap
  fi
  if ! cron_ok; then
    install_pg_cron || warn "pg_cron could not be set up (see above and $LOG); migrations will skip it"
  fi

  read_state || die "cannot query PostgreSQL after provisioning"
  if ! required_ok; then
    echo "provision-postgres: ERROR: still missing after installing:" >&2
    print_instructions
    return 1
  fi
  cron_ok || warn "pg_cron is not available"
  info "done: vector, pgtap, pg_prove$(cron_ok && echo ' and pg_cron') are available"
}

WORKDIR=""
trap 'if [[ -n $WORKDIR ]]; then rm -rf "$WORKDIR"; fi' EXIT
main "$@"
