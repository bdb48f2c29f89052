# Sourced by .ci/run: a real PostgreSQL 15 for prismind-mcp's PostgreSQL tests.
# Installs Debian's PostgreSQL 15 and its server headers (once), builds pgvector from the vendored
# source (scripts/vendor/, once), starts a throwaway cluster on loopback (C.UTF-8, so pg_trgm cuts
# Japanese into trigrams), and exports PRISMIND_TEST_DATABASE_URL for the tests plus
# PRISMIND_REQUIRE_POSTGRES=1, which turns a missing server into a test failure instead of a fallback.
# The cluster is stopped and removed when .ci/run exits.

ci_postgres_start() {
  local repo=$1
  local bin=/usr/lib/postgresql/15/bin
  export PRISMIND_REQUIRE_POSTGRES=1
  if ! dpkg -s postgresql-15 postgresql-server-dev-15 build-essential >/dev/null 2>&1; then
    step "apt-get install postgresql postgresql-server-dev-15 build-essential"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      postgresql postgresql-server-dev-15 build-essential) >/dev/null 2>&1 ||
      echo "warning: could not install PostgreSQL 15; prismind-mcp's PostgreSQL tests will fail"
  fi
  local version=0.8.1
  if [ -x /usr/bin/pg_config ] && [ ! -f "$(/usr/bin/pg_config --sharedir)/extension/vector--$version.sql" ]; then
    step "build pgvector $version (scripts/vendor)"
    local build
    build=$(mktemp -d)
    if tar xzf "$repo/scripts/vendor/pgvector-$version.tar.gz" -C "$build" &&
      make -s -C "$build/pgvector-$version" OPTFLAGS="" >/dev/null 2>&1 &&
      make -s -C "$build/pgvector-$version" install >/dev/null 2>&1; then
      :
    else
      echo "warning: could not build pgvector; prismind-mcp's PostgreSQL tests will fail"
    fi
    rm -rf "$build"
  fi
  if [ ! -x "$bin/initdb" ] || ! id postgres >/dev/null 2>&1; then
    echo "warning: no PostgreSQL 15 server binaries; prismind-mcp's PostgreSQL tests will fail"
    return 0
  fi
  CI_PG_DIR=$(mktemp -d /tmp/prismind-ci-pg.XXXXXX)
  chown postgres "$CI_PG_DIR"
  local port
  port=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
  step "start a throwaway PostgreSQL 15 cluster on 127.0.0.1:$port"
  if runuser -u postgres -- "$bin/initdb" -D "$CI_PG_DIR/data" --locale=C.UTF-8 -E UTF8 -A trust -U postgres \
    >"$CI_PG_DIR/initdb.log" 2>&1 &&
    runuser -u postgres -- "$bin/pg_ctl" -D "$CI_PG_DIR/data" -l "$CI_PG_DIR/server.log" -w -t 60 start \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $CI_PG_DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
      >/dev/null; then
    export PRISMIND_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
    trap ci_postgres_stop EXIT
  else
    echo "warning: the PostgreSQL cluster did not start:"
    tail -n 20 "$CI_PG_DIR/initdb.log" "$CI_PG_DIR/server.log" 2>/dev/null
  fi
}

ci_postgres_stop() {
  if [ -n "${CI_PG_DIR:-}" ] && [ -d "$CI_PG_DIR/data" ]; then
    runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$CI_PG_DIR/data" -m immediate stop >/dev/null 2>&1
  fi
  [ -n "${CI_PG_DIR:-}" ] && rm -rf "$CI_PG_DIR"
}
