#!/usr/bin/env bash
# Where the open-cube paper's §5 protocol, as written (--protocol paper, or
# PROTOCOL=paper-mechanism for the other reading of its tie-break), is safe
# in practice, and its overhead per failure there beside the
# project's protocol and the paper's iPSC/2 figures (8 msg/failure at
# N = 32, 9.75 at N = 64). The protocol is unsafe (docs/failures.md: a
# 15-step counterexample); this counts, row by row, the seeds in which it
# breaks, so that a row reads "safe in S of S seeds at this load", never
# "safe". Writes published/paper-protocol-PROTOCOL.txt.
#
# Every seed of a row is its own run (`ocbench --seed s`), so that a
# violation is counted per seed (a run stops at its first one):
#   unsafe     the crash run broke safety (two tokens, or two nodes in the
#              critical section), run with --no-baseline;
#   stuck      the crash run broke liveness (a request never served, or the
#              run's budget spent);
#   no-crash   the same load without crashes, the failure protocol on
#              (--ft), as many requests as the crash run issued: seeds in
#              which the protocol alone (its false suspicions) broke safety
#              or liveness.
# failures counts the crashes of every seed's run (a run stops at its first
# violation), fail/unsafe divides it by the unsafe seeds: about how many
# failures the protocol survives per safety violation. paper msg/failure
# is the overhead per failure (failure-cause messages per crash) over the
# failures of the seeds with no violation in the crash run, ± its 95% CI; ocbench msg/failure is the project's protocol on the same
# seeds (--repeat), with its violations. Usage:
# scripts/paper-protocol.sh [seeds] (default 100); RESULTS=DIR writes into
# DIR instead of published/; PROTOCOL=paper-mechanism (default paper)
# chooses the reading of §5's tie-break; NODES="32" (default "32 64") the
# sizes. About 20 minutes with 100 seeds on 2 busy cores.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-100}
protocol=${PROTOCOL:-paper}
nodes=${NODES:-32 64}
make -s build
out=${RESULTS:-published}/paper-protocol-$protocol.txt
fmt='%-20s %3s %5s %6s %5s %8s %8s %9s  %-15s  %-15s %4s %6s\n'

# row LABEL N CRASHES FLAGS...: one row of the table (seeds 1..S).
row() {
  local label=$1 n=$2 crashes=$3
  shift 3
  local unsafe=0 stuck=0 nocrash=0 all=0 samples
  samples=$(mktemp)
  for s in $(seq 1 "$seeds"); do
    local rec
    rec=$(./ocbench --nodes "$n" --crashes "$crashes" --requests 1 --seed "$s" --protocol "$protocol" --no-baseline "$@" \
      --json --no-save --quiet 2>/dev/null || true)
    local sv lv issued f
    read -r sv lv issued f < <(jq -r '.runs[0] | "\(.safety_violations) \(.liveness_violations) \(.requests_issued) \(.failures)"' <<<"$rec")
    all=$((all + f))
    if ((sv > 0)); then
      unsafe=$((unsafe + 1))
    elif ((lv > 0)); then
      stuck=$((stuck + 1))
    else
      jq -r '.runs[0].overhead_samples[]' <<<"$rec" >>"$samples"
    fi
    # The crash-free run: the workload flags without the fault plan's.
    local free=() skip=0
    for a in "$@"; do
      if ((skip)); then skip=0; continue; fi
      case $a in --crash-spacing | --crash-every | --downtime | --downtime-dist) skip=1 ;; *) free+=("$a") ;; esac
    done
    if ! ./ocbench --nodes "$n" --ft --requests "$issued" --seed "$s" --protocol "$protocol" "${free[@]}" \
      --check counts --no-save --quiet >/dev/null 2>&1; then
      nocrash=$((nocrash + 1))
    fi
  done
  local paper
  paper=$(awk '{ s += $1; q += $1 * $1; n++ }
    END { if (n == 0) { print "-"; exit }
          m = s / n; v = n > 1 ? (q - n * m * m) / (n - 1) : 0; if (v < 0) v = 0
          printf "%.2f ± %.2f", m, 1.96 * sqrt(v / n) }' "$samples")
  rm -f "$samples"
  local ours
  ours=$(./ocbench --nodes "$n" --crashes "$crashes" --requests 1 --seed 1 --repeat "$seeds" --protocol ocbench --no-baseline "$@" \
    --json --no-save --quiet 2>/dev/null | jq -r '.runs[0] | "\(.overhead_per_failure.mean) \(.overhead_per_failure.ci95_high - .overhead_per_failure.mean) \(.safety_violations + .liveness_violations)"' || true)
  local om oc ov
  read -r om oc ov <<<"$ours"
  local per="-"
  if ((unsafe > 0)); then per=$((all / unsafe)); fi
  local fig="-"
  case $n in 32) fig=8 ;; 64) fig=9.75 ;; esac
  # shellcheck disable=SC2059
  printf "$fmt" "$label" "$n" "$seeds" "$unsafe" "$stuck" "$nocrash" "$all" "$per" "$paper" "$(printf '%.2f ± %.2f' "$om" "$oc")" "$ov" "$fig"
}

header() {
  # shellcheck disable=SC2059
  printf "$fmt" "load" "N" "seeds" "unsafe" "stuck" "no-crash" "failures" "fail/unsafe" "paper msg/fail" "ocbench msg/fail" "viol" "iPSC/2"
}

# The ipsc2 preset's crashes: exponential gaps of mean 50δ, downtimes
# exponential of mean 20δ, 300 crashes at N = 32 and 200 at N = 64.
ipsc2() { echo --crash-every 50 --downtime 20; }
crashes() { if (($1 == 32)); then echo 300; else echo 200; fi; }

{
  echo "# The paper's §5 protocol (--protocol $protocol): seeds that break, and its overhead per failure where none does"
  echo "# measured by scripts/paper-protocol.sh $seeds; $(date -u +%Y-%m-%dT%H:%M:%SZ); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(nproc) cores; $(go version | cut -d' ' -f3)"
  echo "# a row: ./ocbench --nodes N --crashes C --requests 1 --seed s --protocol $protocol --no-baseline CRASH-FLAGS LOAD-FLAGS, s = 1..seeds"
  echo "# unsafe / stuck: seeds whose crash run broke safety / liveness; no-crash: seeds whose crash-free run (--ft, same load and"
  echo "# requests) broke either; failures: crashes in all seeds' runs (a run stops at its first violation); fail/unsafe: failures"
  echo "# per unsafe seed; paper msg/fail: overhead per failure over the failures of the seeds with no violation (± 95% CI);"
  echo "# ocbench msg/fail: the project's protocol, same seeds (--repeat), viol its violations; iPSC/2: the paper's §6 figure"
  echo
  echo "## load, with the ipsc2 preset's crashes (gaps exp(mean 50δ), down exp(mean 20δ); 300 crashes at N=32, 200 at N=64)"
  header
  for n in $nodes; do
    c=$(crashes "$n")
    # shellcheck disable=SC2046
    {
      row "saturated" "$n" "$c" $(ipsc2) --workload saturated
      row "think N" "$n" "$c" $(ipsc2) --workload poisson --think "$n"
      row "think 10N (ipsc2)" "$n" "$c" $(ipsc2) --workload poisson --think $((10 * n))
      row "think 100N" "$n" "$c" $(ipsc2) --workload poisson --think $((100 * n))
      row "think 1000N" "$n" "$c" $(ipsc2) --workload poisson --think $((1000 * n))
      row "think 10000N" "$n" "$c" $(ipsc2) --workload poisson --think $((10000 * n))
      row "sequential" "$n" "$c" $(ipsc2) --workload sequential
    }
  done
  echo
  echo "## one failure at a time (the paper's \"at most one node can fail\"): a crash every 200δ exactly, down 20δ exactly"
  header
  for n in $nodes; do
    c=$(crashes "$n")
    one=(--crash-spacing fixed --crash-every 200 --downtime 20 --downtime-dist fixed)
    row "sequential" "$n" "$c" "${one[@]}" --workload sequential
    row "think 10N" "$n" "$c" "${one[@]}" --workload poisson --think $((10 * n))
    row "think 1000N" "$n" "$c" "${one[@]}" --workload poisson --think $((1000 * n))
  done
} | tee "$out"
echo "wrote $out"
