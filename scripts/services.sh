#!/usr/bin/env bash
# Makes sure PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379) run on this machine.
# Starts them when installed but stopped; installs them from Debian packages when absent.
# With --chromium, also installs Debian's chromium package when no Chromium is on PATH: the headless
# browser of test/swagger-ui.e2e-spec.ts. A machine where it cannot be installed is not an error:
# that test is then skipped and says why.
# Safe to run any number of times; prints one line per service. Used by .ci/run and by hand.
set -euo pipefail

PG_HOST=127.0.0.1
PG_PORT=5432
REDIS_HOST=127.0.0.1
REDIS_PORT=6379
WAIT_SECONDS=30

# Root in CI; a developer's account goes through sudo for package installs and service starts.
if [ "$(id -u)" -eq 0 ]; then
  AS_ROOT=()
elif command -v sudo >/dev/null 2>&1; then
  AS_ROOT=(sudo)
else
  AS_ROOT=()
fi

fail() {
  echo "services: $*" >&2
  exit 1
}

WITH_CHROMIUM=0
for arg in "$@"; do
  case "$arg" in
    --chromium) WITH_CHROMIUM=1 ;;
    *) fail "unknown option $arg (known: --chromium)" ;;
  esac
done

APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null 2>&1 || fail "cannot install $* here: apt-get is not available (install it yourself)"
  if [ "$APT_UPDATED" -eq 0 ]; then
    "${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || fail "apt-get update failed"
    APT_UPDATED=1
  fi
  "${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null || fail "apt-get install $* failed"
}

# Waits (bounded) until the command succeeds.
wait_for() {
  local i
  for ((i = 0; i < WAIT_SECONDS; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  return 1
}

# ---------------------------------------------------------------- PostgreSQL

pg_up() { pg_isready -q -h "$PG_HOST" -p "$PG_PORT"; }

pg_installed() { command -v pg_ctlcluster >/dev/null 2>&1 && compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; }

# Newest installed server version (e.g. 15).
pg_version() { ls /usr/lib/postgresql | sort -V | tail -n 1; }

# "version name status" of the cluster on PG_PORT, if any.
pg_cluster_on_port() { pg_lsclusters -h 2>/dev/null | awk -v port="$PG_PORT" '$3 == port { print $1, $2, $4; exit }'; }

# Lets user postgres (start-up) and the app's two logins, storefront_app (requests) and storefront_service
# (workers), connect over local TCP without a password (first matching line wins, so prepend).
# Only applied to a cluster this script installed or created: an existing setup is left as it is.
pg_trust_local_tcp() {
  local hba="/etc/postgresql/$1/$2/pg_hba.conf"
  [ -f "$hba" ] || fail "PostgreSQL: $hba not found"
  grep -q '^host[[:space:]]\+all[[:space:]]\+postgres,storefront_app,storefront_service[[:space:]]\+127\.0\.0\.1/32[[:space:]]\+trust' "$hba" && return 0
  local updated
  updated="$(mktemp)"
  {
    echo '# Added by scripts/services.sh: local development and CI connect without a password.'
    echo 'host    all    postgres,storefront_app,storefront_service    127.0.0.1/32    trust'
    echo 'host    all    postgres,storefront_app,storefront_service    ::1/128         trust'
    cat "$hba"
  } >"$updated"
  "${AS_ROOT[@]}" cp "$updated" "$hba"
  rm -f "$updated"
}

ensure_postgres() {
  if pg_up; then
    echo "PostgreSQL: already running on $PG_HOST:$PG_PORT"
    return
  fi
  local did="" fresh=0
  if ! pg_installed; then
    apt_install postgresql
    pg_installed || fail "PostgreSQL: installed the postgresql package but found no server binaries"
    did="installed, "
    fresh=1
  fi
  local cluster version name status
  cluster="$(pg_cluster_on_port)"
  if [ -z "$cluster" ]; then
    if [ -n "$(pg_lsclusters -h 2>/dev/null)" ]; then
      fail "PostgreSQL: no cluster uses port $PG_PORT (see pg_lsclusters); start one there or set DATABASE_URL"
    fi
    version="$(pg_version)"
    "${AS_ROOT[@]}" pg_createcluster -p "$PG_PORT" "$version" main >/dev/null || fail "PostgreSQL: pg_createcluster $version main failed"
    cluster="$version main down"
    did="${did}cluster created, "
    fresh=1
  fi
  read -r version name status <<<"$cluster"
  local log="/var/log/postgresql/postgresql-$version-$name.log"
  if [ "$fresh" -eq 1 ]; then
    pg_trust_local_tcp "$version" "$name"
  fi
  if [[ "$status" == online* ]]; then
    # Already started (e.g. by the package's postinst) but not answering yet: reload so pg_hba.conf applies.
    "${AS_ROOT[@]}" pg_ctlcluster --skip-systemctl-redirect "$version" "$name" reload >/dev/null 2>&1 || true
  else
    "${AS_ROOT[@]}" pg_ctlcluster --skip-systemctl-redirect "$version" "$name" start ||
      fail "PostgreSQL: pg_ctlcluster $version $name start failed (log: $log)"
  fi
  wait_for pg_up || fail "PostgreSQL: not answering on $PG_HOST:$PG_PORT after ${WAIT_SECONDS}s (log: $log)"
  echo "PostgreSQL: ${did}started cluster $version/$name on $PG_HOST:$PG_PORT"
}

# --------------------------------------------------------------------- Redis

redis_up() { [ "$(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }

ensure_redis() {
  if command -v redis-cli >/dev/null 2>&1 && redis_up; then
    echo "Redis: already running on $REDIS_HOST:$REDIS_PORT"
    return
  fi
  local action="started"
  if ! command -v redis-server >/dev/null 2>&1; then
    apt_install redis-server
    action="installed and started"
    # The package's postinst may have started it already.
    if redis_up; then
      echo "Redis: installed, running on $REDIS_HOST:$REDIS_PORT"
      return
    fi
  fi
  command -v redis-cli >/dev/null 2>&1 || apt_install redis-tools
  "${AS_ROOT[@]}" mkdir -p /var/lib/redis /var/log/redis
  "${AS_ROOT[@]}" redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log >/dev/null ||
    fail "Redis: redis-server failed to start (log: /var/log/redis/ci.log)"
  wait_for redis_up || fail "Redis: not answering on $REDIS_HOST:$REDIS_PORT after ${WAIT_SECONDS}s (log: /var/log/redis/ci.log)"
  echo "Redis: $action on $REDIS_HOST:$REDIS_PORT"
}

# ------------------------------------------------------------------ Chromium

chromium_on_path() { command -v chromium || command -v chromium-browser || command -v google-chrome-stable || command -v google-chrome; }

ensure_chromium() {
  local found
  if found="$(chromium_on_path)"; then
    echo "Chromium: already installed ($found)"
    return
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "Chromium: not installed and apt-get is not available; the browser test will be skipped"
    return
  fi
  # In a subshell: a failed install ends only it (apt_install's fail), not the script.
  if (apt_install chromium) && found="$(chromium_on_path)"; then
    echo "Chromium: installed ($found)"
  else
    echo "Chromium: could not be installed (apt-get install chromium); the browser test will be skipped"
  fi
}

ensure_postgres
ensure_redis
if [ "$WITH_CHROMIUM" -eq 1 ]; then ensure_chromium; fi
