#!/usr/bin/env bash
# Proof that the lavapipe capture test survives a busy machine and a cold shader
# cache (issue: the clock check failed 15 of 15 runs under load). Runs
# test/node/capture.test.ts RUNS times (default 20) while LOAD busy loops (default:
# one per core) keep every core busy, each run with a new, empty
# MESA_SHADER_CACHE_DIR. Prints one line per run and a summary; exit 1 if any failed.
# Usage: bash scripts/capture-under-load.sh [RUNS] [LOAD]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
load=${2:-$(nproc)}
npx tsc -p tsconfig.json
loops=()
for ((i = 0; i < load; i++)); do
  bash -c 'while :; do :; done' &
  loops+=($!)
done
trap 'kill "${loops[@]}" 2>/dev/null || true; rm -rf "${cache:-}"' EXIT
passed=0
for ((r = 1; r <= runs; r++)); do
  cache=$(mktemp -d)
  start=$(date +%s)
  if MESA_SHADER_CACHE_DIR="$cache" node --test --test-reporter=dot dist/test/node/capture.test.js >"$cache.log" 2>&1; then
    passed=$((passed + 1)); verdict=pass
  else
    verdict=FAIL; grep -m3 -E 'AssertionError|Error' "$cache.log" | sed 's/^/    /' || true
  fi
  echo "run $r/$runs: $verdict in $(($(date +%s) - start)) s (busy loops: $load, empty shader cache)"
  rm -rf "$cache" "$cache.log"
done
echo "capture test under load: $passed of $runs passed"
[ "$passed" -eq "$runs" ]
