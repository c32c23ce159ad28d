#!/usr/bin/env bash
# Every benchmark, one after the other; each prints its figures as ratios against a peer measured in the same
# run. They print, they do not pass or fail (the size budget is a test: tests/unit/size-budget.test.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
for bench in embed-weight build-throughput sync-server send-throughput page-cost; do
  [ -f "bench/$bench.ts" ] || continue
  echo "== bench/$bench.ts"
  npx tsx "bench/$bench.ts"
  echo
done
