#!/usr/bin/env bash
# The example report: runs the ipsc2 preset (the open-cube paper's iPSC/2
# experiment) and the failure-free comparison of every algorithm, saves them
# (JSON with the environment, CSV), and turns them into published/report/
# with `ocbench report`: report.md with SVG plots, the saved runs in data/,
# and the readable tables.
# Usage: scripts/report.sh [seed]; RESULTS=DIR writes DIR/report instead of
# published/report (make results-check uses it).
# The token-tree algorithms: the survey's are O(N) messages per request and have their own table.
TREE=opencube,centralized,naimi-trehel,raymond
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${1:-1}
make -s build
out=${RESULTS:-published}/report
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
rm -rf "$out"
mkdir -p "$out/data"
./ocbench --preset ipsc2 --seed "$seed" --out "$runs/ipsc2" --quiet | tee "$out/ipsc2.txt"
./ocbench --algo $TREE --nodes 2,4,8,16,32,64,128,256,512,1024,2048,4096 --workload sequential --requests 20000 \
  --seed "$seed" --out "$runs/failure-free" --quiet | tee "$out/failure-free.txt"
cp "$runs"/ipsc2/runs/*.json "$out/data/ipsc2.json"
cp "$runs"/failure-free/runs/*.json "$out/data/failure-free-sequential.json"
cat "$runs"/ipsc2/runs/runs.csv > "$out/data/runs.csv"
tail -n +2 "$runs"/failure-free/runs/runs.csv >> "$out/data/runs.csv"
./ocbench report -o "$out" --title "ocbench example report: the iPSC/2 experiment and the failure-free costs (scripts/report.sh $seed)" \
  "$out/data/ipsc2.json" "$out/data/failure-free-sequential.json"
