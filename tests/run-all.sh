#!/usr/bin/env bash
# The whole test suite, as README and CI run it (`npm test`): installs what a fresh machine lacks (Debian's
# Chromium, PostgreSQL 15, D-Bus) and starts a throwaway PostgreSQL on 127.0.0.1 while the static checks, the
# package build and the unit tests run, then runs the integration and Chromium end-to-end tests, and ends with one
# line `tests: N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.."

[ -d node_modules ] || npm ci --no-audit --no-fund

status=0
step() {
  echo "== $1"
  shift
  "$@" || status=1
}
# The compiled package (`npm run build`, as packed): every test that spawns `push-kit` runs it (the shipped path,
# and Node starts it in a third of the time tsx takes on the sources), and package-install.test.ts packs it
# instead of building again, as long as the tree is the one built (the fingerprint, tests/support/package-build.ts).
build_log=$(mktemp)
build_fingerprint=$(mktemp)
(
  npx tsx tests/support/package-build.ts >"$build_fingerprint" || status=1
  step "package build (dist-pkg)" npm run -s build
  exit $status
) >"$build_log" 2>&1 &
build_pid=$!
# The static checks (~150 CPU-s: tsconfig.json's program, the other type checks, the schema, lint, Prettier) need
# only node_modules and no test needs them: they run at the lowest priority beside the package build, the unit and
# the integration tests, on the CPU those leave idle (the end of each stage, a test waiting on a child process or
# a socket), and what is left of them runs before the files that measure time. Waiting for them before the unit
# tests left a core idle at the end of the static stage (the longest lane alone) and gave none of the tests' idle
# time to them. In lanes (each tool uses one core): the first type check in one, the others in a second.
static_log=$(mktemp)
types_log=$(mktemp)
types_more_log=$(mktemp)
mapfile -t typecheck_steps < <(node -e 'for (const step of require("./package.json").scripts.typecheck.split(" && ")) console.log(step)')
typecheck() { PATH="$PWD/node_modules/.bin:$PATH" bash -c "$1"; }
lowest_priority() { renice -n 19 -p "$BASHPID" >/dev/null 2>&1 || true; }
(
  lowest_priority
  step "typecheck (${typecheck_steps[0]})" typecheck "${typecheck_steps[0]}"
  exit $status
) >"$types_log" 2>&1 &
types_pid=$!
(
  lowest_priority
  for command in "${typecheck_steps[@]:1}"; do step "typecheck ($command)" typecheck "$command"; done
  exit $status
) >"$types_more_log" 2>&1 &
types_more_pid=$!
(
  lowest_priority
  step "JSON Schema is current" npx tsx config/write-json-schema.ts --check
  step "lint" npm run -s lint
  step "formatting (Prettier)" npm run -s format:check
  exit $status
) >"$static_log" 2>&1 &
static_pid=$!

# Debian's packages install and the throwaway PostgreSQL starts in the background: on a fresh machine the download
# overlaps the static checks, the package build and the unit tests (none of which needs them).
pg_dir=$(mktemp -d /tmp/push-kit-pg.XXXXXX)
pg_url_file="$pg_dir/url"
# The migrated embedded database the test files copy rather than each migrating its own
# (tests/support/migrated-database.ts): made once by the first file that needs it, removed with the run.
PUSHKIT_TEST_DB_TEMPLATES=$(mktemp -d /tmp/push-kit-db-templates.XXXXXX)
export PUSHKIT_TEST_DB_TEMPLATES
cleanup() {
  local pg_bin
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -n "$pg_bin" ] && [ -f "$pg_dir/data/postmaster.pid" ]; then
    runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate stop >/dev/null 2>&1
  fi
  rm -rf "$pg_dir" "$PUSHKIT_TEST_DB_TEMPLATES"
  [ -n "${tests_tmp:-}" ] && rm -rf "$tests_tmp"
}
trap cleanup EXIT
setup_log=$(mktemp)
(
  need=()
  [ -x /usr/bin/chromium ] || need+=(chromium)
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
  command -v dbus-daemon >/dev/null 2>&1 || need+=(dbus)
  if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
      echo "Installing ${need[*]} from Debian's packages"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    else
      echo "Missing ${need[*]}: run as root or install them (apt-get install -y ${need[*]})" >&2
    fi
  fi
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -n "$pg_bin" ] && [ -z "${PUSHKIT_TEST_DATABASE_URL:-}" ]; then
    chown postgres "$pg_dir" 2>/dev/null
    run_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
    # A random port below Linux's ephemeral range (32768 up), where outgoing connections take theirs: one taken by
    # another process (a benchmark's server) makes the start fail, and is tried again on another.
    started=""
    if run_pg "$pg_bin/initdb" -D "$pg_dir/data" -U pushkit --auth=trust >/dev/null 2>&1; then
      for _ in 1 2 3 4 5; do
        pg_port=$(( 20000 + RANDOM % 12000 ))
        rm -f "$pg_dir/log"
        if run_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -o "-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1" -l "$pg_dir/log" -w start >/dev/null 2>&1; then
          started=1
          break
        fi
        grep -q "Address already in use" "$pg_dir/log" 2>/dev/null || break
      done
    fi
    if [ -n "$started" ]; then
      echo "postgres://pushkit@127.0.0.1:$pg_port/postgres" >"$pg_url_file"
    else
      echo "Could not start PostgreSQL; its tests are skipped" >&2
      cat "$pg_dir/log" >&2 2>/dev/null
    fi
  fi
) >"$setup_log" 2>&1 &
setup_pid=$!

if wait "$build_pid"; then
  export PUSHKIT_COMPILED_CLI=1 PUSHKIT_TEST_PACKAGE_BUILT="$(cat "$build_fingerprint")"
else
  status=1
fi
cat "$build_log"
rm -f "$build_log" "$build_fingerprint"
mkdir -p tests/artifacts
# Unit files share their worker's module cache (--no-isolate), except those that need a module graph of their own:
# a browser environment (happy-dom), a mocked module, a stubbed global or environment variable, fake timers, a
# global or process.env set by hand. Loading the modules afresh for each file took ~29 of the shared files' ~40
# CPU-s of collection (43 files, load 9-16).
unit_own_graph='@vitest-environment|vi\.(mock|doMock|stubGlobal|stubEnv|useFakeTimers)|process\.env\.[A-Za-z_]+ =|delete process\.env|globalThis\.[A-Za-z_]+ ='
mapfile -t unit_isolated < <(grep -lE "$unit_own_graph" tests/unit/*.test.ts tests/unit/*.test.tsx)
unit_isolated_excludes=()
for file in "${unit_isolated[@]}"; do unit_isolated_excludes+=(--exclude "$file"); done
step "unit tests" npx vitest run tests/unit "${unit_isolated_excludes[@]}" --maxWorkers=2 --no-isolate --reporter=default --reporter=json --outputFile.json=tests/artifacts/unit.json
if [ ${#unit_isolated[@]} -gt 0 ]; then
  step "unit tests, each file with its own modules" npx vitest run "${unit_isolated[@]}" --maxWorkers=2 --reporter=default --reporter=json --outputFile.json=tests/artifacts/unit-isolated.json
else
  echo '{"numPassedTests":0,"numFailedTests":0}' >tests/artifacts/unit-isolated.json
fi
wait "$setup_pid"
cat "$setup_log"
rm -f "$setup_log"
if [ -f "$pg_url_file" ]; then
  export PUSHKIT_TEST_DATABASE_URL="$(cat "$pg_url_file")"
  echo "PostgreSQL for the tests: $PUSHKIT_TEST_DATABASE_URL"
fi
# Two files at a time (most wait on child processes and sockets), except those that measure time under load or
# hold a lease across a restart: those run after, one at a time, on a machine left to them. Files of one worker
# share its module cache (--no-isolate, as the e2e files do): the server's modules are loaded once per worker, not
# once per file (about 55 s of the stage); no integration file mocks a module, and those that set an environment
# variable put it back.
alone=(server-faults-campaign server-faults-embedded server-faults-postgres server-load server-owner-scale security-slow-body)
alone_excludes=()
alone_files=()
for name in "${alone[@]}"; do
  alone_excludes+=(--exclude "tests/integration/$name.test.ts")
  alone_files+=("tests/integration/$name.test.ts")
done
# The integration and browser files' temporary folders (projects, state folders, a copy of the migrated database each,
# 1,180 files each) on tmpfs when the machine has one with room: copying the database took 0.6-0.9 s of CPU on ext4
# at load 12 (the kernel's file creation and journal) against 0.07-0.08 s on /dev/shm, and the databases' writes
# and syncs no longer wait on the disk (cli-members: 98-214 s against 73-109 s at load 12-26, alternating). A
# small /dev/shm (a container's 64 MB) is not used.
tests_tmp=""
if [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -ge 4194304 ] 2>/dev/null; then
  tests_tmp=$(mktemp -d /dev/shm/push-kit-tests.XXXXXX)
  # as /tmp lets them: another user reaches a project made readable (security-private-state's control), lists none
  chmod 711 "$tests_tmp"
fi
export_tmp() { if [ -n "$tests_tmp" ]; then TMPDIR="$tests_tmp" "$@"; else "$@"; fi; }
step "integration tests" export_tmp npx vitest run tests/integration "${alone_excludes[@]}" --maxWorkers=2 --no-isolate --reporter=default --reporter=json --outputFile.json=tests/artifacts/integration.json
wait "$types_pid" || status=1
wait "$types_more_pid" || status=1
wait "$static_pid" || status=1
cat "$types_log" "$types_more_log" "$static_log"
rm -f "$types_log" "$types_more_log" "$static_log"
# Their one worker shares its module cache too: loading the server's modules afresh for each of the six files took
# ~9.5 of their ~16 CPU-s of collection (load 12-15).
step "integration tests that measure time, one at a time" export_tmp npx vitest run "${alone_files[@]}" --maxWorkers=1 --no-isolate --reporter=default --reporter=json --outputFile.json=tests/artifacts/integration-alone.json
# the browser files' too: each copies the migrated database for its provider, and Chromium writes its profiles there
step "browser end-to-end tests" export_tmp npx vitest run --config vitest.e2e.config.ts --reporter=default --reporter=json --outputFile.json=tests/artifacts/e2e.json

# The count, and each failed test with the first lines of its error, last: a CI log shown only by its tail still says
# which test failed and why.
node -e '
  const fs = require("fs");
  const path = require("path");
  let passed = 0, failed = 0;
  const failures = [];
  for (const file of ["tests/artifacts/unit.json", "tests/artifacts/unit-isolated.json", "tests/artifacts/integration.json", "tests/artifacts/integration-alone.json", "tests/artifacts/e2e.json"]) {
    try {
      const r = JSON.parse(fs.readFileSync(file, "utf8"));
      passed += r.numPassedTests;
      failed += r.numFailedTests || 0;
      for (const suite of r.testResults || []) {
        const where = path.relative(process.cwd(), suite.name);
        const tests = (suite.assertionResults || []).filter((t) => t.status === "failed");
        for (const t of tests) failures.push([where + " > " + t.fullName, (t.failureMessages || []).join("\n")]);
        // a file that failed outside its tests (a hook, its collection) counts once
        if (!tests.length && suite.status === "failed") {
          failed += 1;
          failures.push([where, suite.message || ""]);
        }
      }
    } catch { failed += 1; failures.push([file, "no results"]); }
  }
  for (const [name, message] of failures) {
    console.log("FAILED " + name);
    for (const line of message.split("\n").filter((l) => l.trim() && !l.includes("node_modules")).slice(0, 8)) console.log("    " + line.slice(0, 300));
  }
  console.log(`tests: ${passed} passed, ${failed} failed`);
'
exit $status
