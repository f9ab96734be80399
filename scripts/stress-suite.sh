#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The whole test suite (scripts/test.sh: gcc, clang ASan+UBSan and QSBR
# builds), N times in a row, while a load generator keeps every CPU busy: a
# suite that passes only on a quiet machine fails on a real one.  Reports,
# for each test of each build, how many runs it passed and its slowest time,
# and for each broken twin its catch rate (scripts/matrix.sh over all runs).
#
#   scripts/stress-suite.sh [--runs N] [--load N] [--out DIR]
#
#   --runs N   runs of the whole suite (default 5)
#   --load N   CPU hogs beside it (default 2 per CPU); 0 runs it quiet
#   --out DIR  where the logs and the report go (default stress-out)
#
# The load is `stress-ng --cpu N` (Debian's stress-ng) or, without it, N
# shell busy loops.  The report is DIR/report.md; each run's meson logs are
# kept as DIR/run-K/BUILD.json.  Exit 1 if any test failed in any run.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=5
load=$(( 2 * $(nproc) ))
out=stress-out
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--load) load=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--help|-h) sed -n '3,18p' "$0"; exit 0 ;;
	*) echo "$0: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ && "$load" =~ ^[0-9]+$ ]] ||
	{ echo "$0: --runs wants a number >= 1 and --load a number >= 0" >&2; exit 2; }

builds=(build build-asan build-qsbr)
hogs=()

start_load() {
	[ "$load" -eq 0 ] && return
	if command -v stress-ng >/dev/null; then
		stress-ng --cpu "$load" --quiet &
		hogs+=($!)
	else
		for _ in $(seq "$load"); do
			( while :; do :; done ) &
			hogs+=($!)
		done
	fi
}

stop_load() {
	[ ${#hogs[@]} -eq 0 ] && return
	kill "${hogs[@]}" 2>/dev/null
	wait "${hogs[@]}" 2>/dev/null
	hogs=()
}
trap stop_load EXIT

mkdir -p "$out"
: >"$out/runs.tsv"
start_load
for k in $(seq "$runs"); do
	echo "== stress run $k of $runs (load: $load CPU hogs)"
	t0=$(date +%s)
	scripts/test.sh >"$out/run-$k.log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	mkdir -p "$out/run-$k"
	for b in "${builds[@]}"; do
		[ -f "$b/meson-logs/testlog.json" ] && cp "$b/meson-logs/testlog.json" "$out/run-$k/$b.json"
	done
	summary=$(grep -E '^tests: ' "$out/run-$k.log" | tail -n 1)
	printf '%s\t%s\t%s\t%s\n' "$k" "$rc" "$secs" "$summary" >>"$out/runs.tsv"
	echo "   $summary in ${secs} s (exit $rc)"
done
load_avg=$(cut -d' ' -f1-3 /proc/loadavg)
stop_load

# ---- the report ----
report=$out/report.md
{
	echo "# Stress runs of the whole suite"
	echo
	echo "$runs runs of \`scripts/test.sh\` with $load CPU hogs on $(nproc) CPUs"
	echo "(load average at the end: $load_avg), $(date -u '+%Y-%m-%d')."
	echo
	echo "| run | exit | seconds | result |"
	echo "|---|---|---|---|"
	while IFS=$'\t' read -r k rc secs summary; do
		echo "| $k | $rc | $secs | $summary |"
	done <"$out/runs.tsv"
	echo
	echo "Each test: runs passed (a broken twin passes when it is caught), and its"
	echo "slowest time in seconds."
	echo
	python3 - "$out" "$runs" "${builds[@]}" <<'EOF'
import json, os, sys
out, runs, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
good = {"OK", "EXPECTEDFAIL"}
table = {}
for k in range(1, runs + 1):
    for b in builds:
        path = os.path.join(out, f"run-{k}", f"{b}.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for line in f:
                t = json.loads(line)
                cell = table.setdefault(t["name"], {}).setdefault(b, [0, 0, 0.0])
                cell[0] += t["result"] in good
                cell[1] += 1
                cell[2] = max(cell[2], t["duration"])
print("| test | " + " | ".join(builds) + " |")
print("|---" * (len(builds) + 1) + "|")
for name in sorted(table):
    cells = []
    for b in builds:
        c = table[name].get(b)
        cells.append(f"{c[0]}/{c[1]}, {c[2]:.1f}" if c else "-")
    flag = "" if all(c[0] == c[1] for c in table[name].values()) else " **FAILED**"
    print(f"| {name}{flag} | " + " | ".join(cells) + " |")
EOF
	echo
	echo "## The broken twins: catch rate over the runs"
	for b in "${builds[@]}"; do
		echo
		echo "### $b"
		echo
		# shellcheck disable=SC2046
		scripts/matrix.sh --markdown "$b" $(ls "$out"/run-*/"$b".json 2>/dev/null) || true
	done
} >"$report"
echo "report: $report"
! grep -q 'FAILED\*\*' "$report" && awk -F'\t' '$2 != 0 { bad = 1 } END { exit bad }' "$out/runs.tsv"
