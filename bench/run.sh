#!/bin/bash
# The benchmark run behind docs/performance.md.
#
#   bench/run.sh            full run (about 10 minutes on 2 CPUs)
#   QUICK=1 bench/run.sh    tiny tables and runs: checks the pipeline only
#
# Builds two release builds without the debug checks (race-window delays and
# lockdep would distort every figure): liburcu's memb flavour and its QSBR
# flavour, in $BUILDS (default /tmp/rcuproc-bench).  Runs `rcuproc bench`
# from both into $OUT (default bench/results): JSON lines per measurement and
# the targets tables; then bench/plot.sh draws the plots into $IMG.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
builds=${BUILDS:-/tmp/rcuproc-bench}
out=${OUT:-$src/bench/results}
SECONDS_EACH=${SECONDS_EACH:-0.2}
SUITE_SIZES=${SUITE_SIZES:-1000,100000}
# SIZES up to 4194301 (with THREADS=1: the whole pid space, pids 1 to
# 4194303, less init and the thread's process) and GROUPS_ up to 1000000
# (docs/performance.md says how much memory that takes).
SIZES=${SIZES:-1000,10000,100000}
GROUPS_=${GROUPS_:-10,1000,100000}
THREADS=${THREADS:-1,2,3,4}
quick=()
if [ -n "${QUICK:-}" ]; then
	quick=(--quick)
	SECONDS_EACH=0.05 SUITE_SIZES=100 SIZES=100,1000 GROUPS_=10,100 THREADS=1,2
fi
mkdir -p "$out"

for flavour in memb qsbr; do
	if [ ! -d "$builds/$flavour" ]; then
		meson setup "$builds/$flavour" "$src" -Dbuildtype=release \
			-Ddebug_checks=false -Dtests=disabled \
			-Drcu_flavour="$flavour" >/dev/null
	fi
	ninja -C "$builds/$flavour" >/dev/null
done
memb=$builds/memb/tools/rcuproc
qsbr=$builds/qsbr/tools/rcuproc

bench() {	# bench BINARY OUTPUT-NAME ARGS...
	local bin=$1 name=$2
	shift 2
	echo "== rcuproc bench $* > $name" >&2
	"$bin" bench --seconds "$SECONDS_EACH" "${quick[@]}" "$@" >"$out/$name"
}

# Every workload, every mode, 1 and 2 threads, small and large tables.
bench "$memb" suite-memb.jsonl --json --workload suite --threads 1,2 --size "$SUITE_SIZES"
bench "$qsbr" suite-qsbr.jsonl --json --workload suite --threads 1,2 --size "$SUITE_SIZES" \
	--mode rcu,none
# Throughput against threads (more than the CPUs: oversubscribed, marked).
bench "$memb" threads-memb.jsonl --json --workload kill0,lookup_storm,fork_exit \
	--threads "$THREADS" --size 10000
bench "$qsbr" threads-qsbr.jsonl --json --workload kill0,lookup_storm,fork_exit \
	--threads "$THREADS" --size 10000 --mode rcu
# Cost against table size, and against the size of the group signalled.
bench "$memb" sizes-memb.jsonl --json --workload kill0,getpgid,kill_all,ps,wait_scan \
	--threads 1 --size "$SIZES"
bench "$memb" groups-memb.jsonl --json --workload killpg,kill_session,setpriority \
	--threads 1 --size "$GROUPS_"
# The performance contract, once per flavour.
bench "$memb" targets-memb.txt --workload targets
bench "$qsbr" targets-qsbr.txt --workload targets
"$src/bench/plot.sh" "$out"
echo "results in $out" >&2
