#!/usr/bin/env bash
# A/B of two builds of the library with one bench binary: alternating rounds in one session, each round
# running the bench (ours, memcpy and the streaming floor; no PyTorch: --no-torch) once against build A and
# once against build B, the order flipped every round so that a drift of the machine favours neither. The
# library is switched by LD_LIBRARY_PATH (the bench's RUNPATH comes after it). Prints, per case, the median
# of all of A's and of all of B's timed runs (pooled over the rounds) and their B / A; B / A per round (the
# two sides' medians in adjacent processes: median and range over the rounds, the figure a load that
# changes between rounds moves least); and each side's % of its floor.
#
# Usage: bench/ab_libs.sh LIB_DIR_A LIB_DIR_B [trilinear3d_bench options...]
#   e.g. TRILINEAR3D_ISA=avx2 ATEN_CPU_CAPABILITY=avx2 ROUNDS=5 \
#          bench/ab_libs.sh /work/wt-base/build build-bench --cases B1,B2,F1 --reps 3
# LIB_DIR_*: directories holding libtrilinear3d.so (a build directory). BENCH (default
# build-bench/bench/trilinear3d_bench), ROUNDS (default 3) and OUT (default a new temporary directory, where
# each run's JSON is kept) may be set; ROUNDS=0 with the OUT of earlier rounds only summarises them. Build A
# must export what the bench calls for the cases selected (a build before the linear group runs only the
# trilinear cases: the symbols bind lazily).
set -euo pipefail

if [[ $# -lt 2 ]]; then
  sed -n '2,17p' "$0" >&2
  exit 2
fi
A="$(cd "$1" && pwd)"
B="$(cd "$2" && pwd)"
shift 2
BENCH="${BENCH:-build-bench/bench/trilinear3d_bench}"
ROUNDS="${ROUNDS:-3}"
OUT="${OUT:-$(mktemp -d /tmp/ab_libs.XXXXXX)}"
mkdir -p "${OUT}"

for round in $(seq 1 "${ROUNDS}"); do
  order="A B"
  [[ $((round % 2)) -eq 0 ]] && order="B A"
  for side in ${order}; do
    dir="${A}"
    [[ "${side}" == B ]] && dir="${B}"
    echo "=== ab_libs: round ${round}/${ROUNDS}, ${side} (${dir}), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    LD_LIBRARY_PATH="${dir}${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}" "${BENCH}" --no-torch --no-scaling "$@" \
      --json "${OUT}/round${round}-${side}.json" > /dev/null
  done
done

python3 - "${OUT}" "${A}" "${B}" <<'EOF'
import glob, json, re, statistics, sys

out, a_dir, b_dir = sys.argv[1:4]
runs = {}  # case id -> side -> {"ours": [...], "floor": [...], "round": {round: median ours ms}}
isa = {}
for path in sorted(glob.glob(out + "/round*-*.json")):
    round_index, side = re.search(r"round(\d+)-([AB])\.json$", path).groups()
    data = json.load(open(path))
    isa[side] = data["machine"]["isa"]
    for case in data["cases"]:
        if case.get("error"):
            continue
        entry = runs.setdefault(case["id"], {}).setdefault(side, {"ours": [], "floor": [], "round": {}})
        entry["ours"] += case["ours_runs_ms"]
        entry["floor"] += case["floor_runs_ms"]
        entry["round"][int(round_index)] = case["ours_ms"]
print(f"A: {a_dir} ({isa.get('A')})\nB: {b_dir} ({isa.get('B')})\nruns in {out}\n")
print("B / A per round: the ratio of the two sides' medians in the same round (adjacent processes); its")
print("median and range over the rounds. Pooled: the medians of all of a side's runs.\n")
print("| case | A ms (pooled) | B ms (pooled) | B / A pooled | B / A per round: median (min-max) | "
      "A % of floor | B % of floor | rounds |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for case_id, sides in runs.items():
    if "A" not in sides or "B" not in sides:
        continue
    a, b = (statistics.median(sides[s]["ours"]) for s in "AB")
    fa, fb = (statistics.median(sides[s]["floor"]) for s in "AB")
    rounds = sorted(set(sides["A"]["round"]) & set(sides["B"]["round"]))
    ratios = [sides["B"]["round"][r] / sides["A"]["round"][r] for r in rounds]
    print(f"| {case_id} | {a:.3g} | {b:.3g} | {b / a:.3f} | {statistics.median(ratios):.3f} "
          f"({min(ratios):.2f}-{max(ratios):.2f}) | {100 * fa / a:.0f} % | {100 * fb / b:.0f} % | {len(rounds)} |")
EOF
