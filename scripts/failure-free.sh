#!/usr/bin/env bash
# Failure-free message costs of all four rules for N = 2 … 2^16, under the
# sequential and saturated workloads, plus the open-cube paper's per-node
# average c(i) from the initial configuration (workload "each", N ≤ 4096).
# Writes published/failure-free.txt (tables) and published/failure-free.json.
# Usage: scripts/failure-free.sh [seed]; RESULTS=DIR writes into DIR instead
# of published/ (make results-check uses it).
# The token-tree algorithms: the survey's are O(N) messages per request and have their own table.
TREE=opencube,centralized,naimi-trehel,raymond
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${1:-1}
make -s build
out=${RESULTS:-published}/failure-free.txt
json=${RESULTS:-published}/failure-free.json
mkdir -p "$(dirname "$out")"
nodes=2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  echo "# Failure-free message costs, measured by scripts/failure-free.sh $seed"
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); machine: $(uname -srm), $(nproc) cores; $(go version | cut -d' ' -f3)"
  echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo
  echo "## sequential: ./ocbench --algo $TREE --nodes $nodes --workload sequential --requests 20000 --seed $seed"
  ./ocbench --algo $TREE --nodes "$nodes" --workload sequential --requests 20000 --seed "$seed" --wide --out "$tmp/sequential" --quiet
  echo
  echo "## saturated: ./ocbench --algo $TREE --nodes N --workload saturated --requests max(20000, 4N) --seed $seed"
  for n in ${nodes//,/ }; do
    r=$(( 4 * n > 20000 ? 4 * n : 20000 ))
    ./ocbench --algo $TREE --nodes "$n" --workload saturated --requests "$r" --seed "$seed" --wide --no-save --quiet | grep -v '^#\|^VALID: ' | { [ "$n" = 2 ] && cat || tail -n +2; }
  done
  echo
  echo "## each (one lone request per node from the initial configuration): ./ocbench --algo $TREE --nodes 2,…,4096 --workload each"
  ./ocbench --algo $TREE --nodes 2,4,8,16,32,64,128,256,512,1024,2048,4096 --workload each --wide --out "$tmp/each" --quiet | grep -v '^#\|^VALID: '
} | tee "$out"
# The JSON: the records of the sequential and each runs above, from their
# saved files, as {"sequential": {"runs": [...]}, "each": {"runs": [...]}}.
python3 - "$tmp"/sequential/runs/*.json "$tmp"/each/runs/*.json >"$json" <<'PY'
import json, sys
seq, each = (json.load(open(f, encoding="utf-8"))["runs"] for f in sys.argv[1:3])
print(json.dumps({"sequential": {"runs": seq}, "each": {"runs": each}}, indent=2, ensure_ascii=False))
PY
echo "wrote $out and $json"
