#!/bin/bash
# Instructions per operation of the hot paths, from callgrind: repeatable on
# a noisy shared machine where times are not.
#
#   bench/callgrind.sh [BUILD_DIR]
#
# For each hot path and mode, runs `rcuproc bench --ops N` and `--ops 2N`
# under valgrind --tool=callgrind (one thread, or a mix's minimum; a table
# of SIZE processes, or the size after the workload's colon) and prints
# (Ir(2N) - Ir(N)) / N: the set-up, identical in both runs, cancels.  Every
# thread's instructions count.  BUILD_DIR defaults to the
# release build bench/run.sh makes.
#
# FUNCTIONS=K: under each workload's row, the K functions whose own
# instructions per operation differ most between the modes (the same
# subtraction, function by function, from callgrind_annotate): where one
# mode's extra instructions go.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${BUILDS:-/tmp/rcuproc-bench}/memb}
rcuproc=$build/tools/rcuproc
N=${N:-2000}
SIZE=${SIZE:-1000}
MODES=${MODES:-"none rcu rcu-global rwlock qrwlock"}
# workload[:size]: killpg to a group of 10, wait4 over SIZE children,
# fork+exit+wait, and kill0_ps (a mix of 3 threads: one of its operations is
# a ps of 100 processes, a paced fork+exit+wait and a paced kill(pid, 0)).
# A mix does not run unsynchronized: "-" in mode none.
WORKLOADS=${WORKLOADS:-"kill0 getppid fork_exit killpg:10 wait_scan kill0_ps:100"}
FUNCTIONS=${FUNCTIONS:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 1; }
[ -x "$rcuproc" ] || { echo "callgrind.sh: no $rcuproc (run bench/run.sh or meson setup first)" >&2; exit 1; }

# Total instructions (Ir) of one run: instructions WORKLOAD[:SIZE] MODE OPS;
# nothing if the workload does not run in MODE.  The profile stays in
# $tmp/MODE-OPS.out for functions.
instructions() {
	local out=$tmp/$2-$3.out size=$SIZE w=$1
	[[ $w == *:* ]] && size=${w#*:} w=${w%%:*}
	valgrind --tool=callgrind --callgrind-out-file="$out" "$rcuproc" bench \
		--workload "$w" --mode "$2" --threads 1 --size "$size" --ops "$3" --repeat 1 --json \
		>"$tmp/bench.out" 2>"$tmp/valgrind.log" || { cat "$tmp/valgrind.log" >&2; return 1; }
	[ -s "$tmp/bench.out" ] || { rm -f "$out"; return 0; }
	awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

# "FUNCTION IR" lines of a profile: each function's own instructions.
self_costs() {
	callgrind_annotate --inclusive=no --threshold=100 "$1" |
		awk '/^ *[0-9,]+ +\(/ && /:/ {
			ir = $1; gsub(",", "", ir)
			fn = $0; sub(/^ *[0-9,]+ +\([^)]*\) +/, "", fn); sub(/ \[.*$/, "", fn)
			sub(/^.*:/, "", fn)
			cost[fn] += ir
		} END { for (f in cost) print f, cost[f] }'
}

# The FUNCTIONS functions of the last workload that differ most between the
# modes measured, instructions per operation in each mode.
functions() {
	local m present=()
	for m in $MODES; do
		[ -s "$tmp/$m-$N.out" ] && [ -s "$tmp/$m-$((2 * N)).out" ] && present+=("$m")
	done
	[ ${#present[@]} -gt 0 ] || return 0
	printf '  %-40s' "function (own instructions per operation)"
	for m in "${present[@]}"; do printf ' %10s' "$m"; done
	printf '\n'
	for m in "${present[@]}"; do
		self_costs "$tmp/$m-$N.out" | sed "s/^/$m one /"
		self_costs "$tmp/$m-$((2 * N)).out" | sed "s/^/$m two /"
	done | awk -v n="$N" -v k="$FUNCTIONS" -v modes="${present[*]}" '
		{ c[$1, $2, $3] = $4; fns[$3] = 1 }
		END {
			nm = split(modes, m, " ")
			for (f in fns) {
				lo = 1e300; hi = -1e300
				for (i = 1; i <= nm; i++) {
					v[f, i] = (c[m[i], "two", f] - c[m[i], "one", f]) / n
					if (v[f, i] < lo) lo = v[f, i]
					if (v[f, i] > hi) hi = v[f, i]
				}
				spread[f] = hi - lo
			}
			for (j = 0; j < k; j++) {
				best = ""
				for (f in spread)
					if (spread[f] > 0.5 && (best == "" || spread[f] > spread[best]))
						best = f
				if (best == "")
					break
				printf "  %-40.40s", best
				for (i = 1; i <= nm; i++)
					printf " %10.1f", v[best, i]
				printf "\n"
				delete spread[best]
			}
		}'
}

printf '%-16s' "workload"
for m in $MODES; do printf ' %10s' "$m"; done
printf '   (instructions per operation, %s processes)\n' "$SIZE"
for w in $WORKLOADS; do
	printf '%-16s' "${w/:/ of }"
	for m in $MODES; do
		one=$(instructions "$w" "$m" "$N")
		two=$(instructions "$w" "$m" $((2 * N)))
		if [ -n "$one" ]; then
			printf ' %10d' $(((two - one) / N))
		else
			printf ' %10s' -
		fi
	done
	printf '\n'
	if [ "$FUNCTIONS" -gt 0 ]; then
		functions
		rm -f "$tmp"/*.out
	fi
done
