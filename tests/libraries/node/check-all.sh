#!/usr/bin/env bash
# Runs every Node lock-library driver against the Redis at 127.0.0.1:PORT (use a throwaway
# server: the drivers leave their locks behind until the leases run out), waits for ready,
# dumps TYPE/PTTL/value of every new key (redis-cli --scan), compares with the manifest,
# watches the PTTL saw-tooth of auto-renewed keys, and stops each driver.
#
#   tests/libraries/node/check-all.sh PORT [--runs N] [--measure] [--only drv1,drv2] [--out DIR] [--prefix P]
#
# --measure polls every renewed key for 20 s at 100 ms (slower). Exit 0 = all passed.
set -euo pipefail
cd "$(dirname "$0")"
PORT="${1:?usage: check-all.sh PORT [--runs N] [--measure] [--only a,b]}"
shift
command -v redis-cli >/dev/null || { echo "redis-cli not found" >&2; exit 2; }
redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null || { echo "no Redis on 127.0.0.1:$PORT" >&2; exit 2; }
if [ ! -d node_modules ] || [ package.json -nt node_modules ]; then
  npm ci --no-audit --no-fund >/dev/null
fi
exec timeout 1500 node _check.js --port "$PORT" "$@"
