#!/usr/bin/env bash
# How far the iPSC/2 comparison moves with what the open-cube paper does not
# give: the request load, the gap between crashes and the down time. Each
# row changes one of them from the ipsc2 preset (think 10·N δ, gaps
# exp(mean 50δ), down exp(mean 20δ); 300 crashes at N = 32, 200 at N = 64,
# seeds 1..S) and prints the project's protocol's overhead per failure under
# the count the default table shows (AR: regeneration announcements and
# re-issued requests in, heartbeats and chases out, ± 95% CI), the range
# over the eight counts (results.Conventions: each of A, R, H in or out),
# and that range over the paper's figure (8 at N = 32, 9.75 at N = 64).
# Usage: scripts/ipsc2-sensitivity.sh [seeds] (default 5). Prints a
# Markdown table on stdout (docs/results.md quotes it).
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-5}
make -s build

# row LABEL N THINK GAP DOWN: one row, the project's protocol, seeds 1..S.
row() {
  local label=$1 n=$2 think=$3 gap=$4 down=$5 c=300 fig=8
  if ((n == 64)); then c=200 fig=9.75; fi
  local load=(--workload poisson --think "$think")
  if [[ $think == sequential ]]; then load=(--workload sequential); fi
  ./ocbench --nodes "$n" --crashes "$c" --requests 1 --seed 1 --repeat "$seeds" "${load[@]}" --cs-time 1 \
    --crash-spacing exp --crash-every "$gap" --crash-start 0 --downtime "$down" --downtime-dist exp \
    --permanent 0 --crash-target random --no-baseline --json --no-save --quiet 2>/dev/null |
    jq -r --arg name "$label" --argjson fig "$fig" '.runs[0] as $r
      | ($r.failures) as $f
      | ($r.overhead_per_failure.mean) as $m
      | (($m * $f - ($r.overhead_by_type.regenerate // 0) - ($r.overhead_by_type.request // 0)) / $f) as $lo
      | (($m * $f + ($r.messages_by_cause.liveness // 0)) / $f) as $hi
      | "| \($name) | \($r.nodes) | \($f) | \($m * 100 | round / 100) ± \(($r.overhead_per_failure.ci95_high - $m) * 100 | round / 100) | \($lo * 100 | round / 100)–\($hi * 100 | round / 100) | \($lo / $fig * 100 | round / 100)–\($hi / $fig * 100 | round / 100) | \($r.safety_violations + $r.liveness_violations) |"'
}

echo "| varied (rest as the ipsc2 preset) | N | failures | AR msg/failure | range over the 8 counts | ÷ paper | violations |"
echo "|---|---|---|---|---|---|---|"
for n in 32 64; do
  row "preset: think 10N, gap 50δ, down 20δ" "$n" $((10 * n)) 50 20
  for t in sequential $((n)) $((100 * n)) $((1000 * n)); do
    if [[ $t == sequential ]]; then row "load: sequential" "$n" sequential 50 20; else row "load: think $((t / n))N" "$n" "$t" 50 20; fi
  done
  for g in 25 200 1000; do row "crash gap: ${g}δ" "$n" $((10 * n)) "$g" 20; done
  for d in 5 80; do row "down time: ${d}δ" "$n" $((10 * n)) 50 "$d"; done
done
