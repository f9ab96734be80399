#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Chosen Criterion test binaries, each test case alone and many times, to
# find the tests that fail only now and then (on a loaded machine): a flake
# in one of the suite's 300 runs shows here in a few minutes of one test.
# Not part of `make test`.
#
#   scripts/stress-tests.sh [options] BINARY... | --build DIR
#
#   --build DIR     every tests/test_* binary of the build DIR (beside any
#                   BINARY given)
#   --runs N        runs of each test case (default 20)
#   --load K        K shell busy loops beside the runs, started and stopped
#                   here (default 0)
#   --timeout S     a run still going after S seconds is a hang: its
#                   process's threads' stacks are printed (gdb), then it is
#                   killed (default 150, under the fixture's own hang alarm)
#   --filter GLOB   only the test cases whose suite/name matches the shell
#                   pattern GLOB (repeatable; default: all)
#   --out DIR       the logs of failed runs and the table (default
#                   stress-tests-out)
#   --cpus LIST     run each test pinned to these CPUs (taskset -c LIST):
#                   one CPU makes its threads take turns by preemption,
#                   other interleavings than two CPUs give
#   --keep-going    do not stop a test case's runs at its first failure
#
# Each run is `BINARY --filter SUITE/NAME --jobs 1` in a process group of
# its own; a run fails if it exits non-zero, runs no test, or hangs.  The
# table (also DIR/table.txt) gives, for each test case, its runs, failures,
# hangs and slowest run; each failed run's output is DIR/BIN.SUITE.NAME.K.log
# (with the stacks for a hang).  Exit 0 if every run passed, 1 if one failed,
# 2 on a usage error.  Without --keep-going a test case stops at its first
# failure, so that the time goes to the others.
set -uo pipefail

# All of it in one block, read whole before it runs: a run of an hour
# survives an edit (or a pull) of this file meanwhile, which bash, reading
# a script as it goes, would otherwise pick up half way.
{
(( BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1) )) ||
	{ echo "$0: needs bash 5.1 or later (wait -n -p)" >&2; exit 2; }

runs=20
load=0
timeout=150
out=stress-tests-out
keep_going=0
cpus=
filters=()
bins=()

usage() { sed -n '4,/^set -uo/p' "$0" | sed -e '$d' -e 's/^#//' -e 's/^ //'; }
die() { echo "$0: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
	--build)
		{ [ $# -ge 2 ] && [ -d "$2/tests" ]; } || die "--build wants a build directory with tests/"
		for b in "$2"/tests/test_*; do
			[ -f "$b" ] && [ -x "$b" ] && bins+=("$b")
		done
		shift 2 ;;
	--runs) runs=${2:-}; shift 2 || die "--runs wants a number" ;;
	--load) load=${2:-}; shift 2 || die "--load wants a number" ;;
	--timeout) timeout=${2:-}; shift 2 || die "--timeout wants a number" ;;
	--filter) filters+=("${2:-}"); shift 2 || die "--filter wants a pattern" ;;
	--out) out=${2:-}; shift 2 || die "--out wants a directory" ;;
	--cpus) cpus=${2:-}; shift 2 || die "--cpus wants a CPU list" ;;
	--keep-going) keep_going=1; shift ;;
	--help|-h) usage; exit 0 ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*) [ -x "$1" ] || die "'$1' is not an executable test binary"
	   bins+=("$1"); shift ;;
	esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs wants a number >= 1"
[[ "$load" =~ ^[0-9]+$ ]] || die "--load wants a number >= 0"
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || die "--timeout wants a number of seconds >= 1"
[ ${#bins[@]} -gt 0 ] || die "no test binary (see --help)"
pin=()
if [ -n "$cpus" ]; then
	taskset -c "$cpus" true 2>/dev/null || die "--cpus: taskset -c '$cpus' failed"
	pin=(taskset -c "$cpus")
fi
command -v gdb >/dev/null || echo "$0: no gdb: a hang's stacks will not be printed" >&2

mkdir -p "$out" || die "cannot make '$out'"

# ---- the load: K busy loops, each in the background, stopped on exit ----
hogs=()
stop_load() {
	[ ${#hogs[@]} -eq 0 ] && return
	kill "${hogs[@]}" 2>/dev/null
	wait "${hogs[@]}" 2>/dev/null
	hogs=()
}
current=		# the process group of the run in progress
# shellcheck disable=SC2317  # called by the trap
on_exit() {
	[ -n "$current" ] && kill -KILL -- "-$current" 2>/dev/null
	stop_load
}
trap on_exit EXIT
trap 'exit 130' INT TERM
for _ in $(seq "$load"); do
	( while :; do :; done ) &
	hogs+=($!)
done

# ---- the test cases of a binary, as suite/name (Criterion's --list) ----
# Criterion prints "suite: N tests" and then one "├── name" or "└── name" a test.
list_cases() {
	"$1" --list 2>/dev/null | awk '
		/^[A-Za-z0-9_]+: [0-9]+ tests?$/ { suite = $1; sub(/:$/, "", suite); next }
		/── / { print suite "/" $NF }'
}

wanted() {
	[ ${#filters[@]} -eq 0 ] && return 0
	local f
	for f in "${filters[@]}"; do
		# shellcheck disable=SC2053
		[[ "$1" == $f ]] && return 0
	done
	return 1
}

# The stacks of every thread of the stuck run: the runner and its workers
# (Criterion runs the test in a child of the runner).
print_stacks() {
	local pid=$1 p
	for p in $pid $(pgrep -P "$pid"); do
		echo "---- stacks of pid $p ($(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline"))"
		if command -v gdb >/dev/null; then
			timeout 120 gdb -p "$p" -batch -ex 'thread apply all bt' 2>&1 |
				grep -vE '^(\[New LWP|\[Thread debugging|Using host libthread_db|warning: )'
		fi
	done
}

# run_once BIN CASE LOG: one run; sets state (pass, fail or hang) and secs.
state=''
secs=''
run_once() {
	local bin=$1 case=$2 log=$3 pid sleeper first rc t0
	t0=$EPOCHREALTIME
	: >"$log"	# appended to: the stacks go after the run's own output
	setsid "${pin[@]}" "$bin" --filter "$case" --jobs 1 --short-filename >>"$log" 2>&1 &
	pid=$!
	current=$pid
	sleep "$timeout" &
	sleeper=$!
	wait -n -p first "$pid" "$sleeper"
	rc=$?
	if [ "$first" = "$sleeper" ]; then
		state=hang
		{
			echo
			echo "==== stress-tests: still running after ${timeout} s: a hang; the stacks, then kill"
			print_stacks "$pid"
		} >>"$log" 2>&1
		kill -KILL -- "-$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	else
		kill "$sleeper" 2>/dev/null
		wait "$sleeper" 2>/dev/null
		if [ "$rc" -ne 0 ]; then
			state=fail
			echo "==== stress-tests: exit status $rc" >>"$log"
		elif ! grep -qE 'Tested: [1-9]' "$log"; then
			state=fail
			echo "==== stress-tests: the filter ran no test" >>"$log"
		else
			state=pass
		fi
		# Nothing of the run may outlive it (a worker left behind).
		kill -KILL -- "-$pid" 2>/dev/null
	fi
	current=
	secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
}

table=$out/table.txt
: >"$out/runs.tsv"
any_failed=0
start=$(date +%s)
for bin in "${bins[@]}"; do
	# The build's directory too: the same binary of two builds (BUILD/tests/test_x).
	base=$(basename "$(dirname "$(dirname "$bin")")")/$(basename "$bin")
	mapfile -t cases < <(list_cases "$bin")
	[ ${#cases[@]} -gt 0 ] || { echo "$0: $bin lists no test case" >&2; any_failed=1; continue; }
	for case in "${cases[@]}"; do
		wanted "$case" || continue
		fails=0 hangs=0 done=0 slowest=0
		for k in $(seq "$runs"); do
			log=$out/${base//\//.}.${case//\//.}.$k.log
			run_once "$bin" "$case" "$log"
			done=$((done + 1))
			slowest=$(awk -v a="$secs" -v b="$slowest" 'BEGIN { print (a > b) ? a : b }')
			case $state in
			pass) rm -f "$log" ;;
			fail) fails=$((fails + 1)) ;;
			hang) hangs=$((hangs + 1)) ;;
			esac
			if [ "$state" != pass ]; then
				any_failed=1
				echo "$base $case run $k: $state after ${secs} s (log: $log)"
				[ "$keep_going" -eq 1 ] || break
			fi
		done
		printf '%s\t%s\t%s\t%s\t%s\t%.1f\n' "$base" "$case" "$done" "$fails" "$hangs" "$slowest" \
			>>"$out/runs.tsv"
		printf '%-32s %-52s %3d runs, %d failed, %d hung, slowest %.1f s\n' \
			"$base" "$case" "$done" "$fails" "$hangs" "$slowest"
	done
done
load_avg=$(cut -d' ' -f1-3 /proc/loadavg)
stop_load

{
	echo "stress-tests: $runs runs of each test case, $load busy loops," \
		"${cpus:+on CPUs $cpus, }timeout $timeout s; $(( $(date +%s) - start )) s;" \
		"load average at the end $load_avg"
	printf '%-32s %-52s %6s %6s %6s %8s\n' binary 'suite/name' runs failed hung slowest
	sort -t$'\t' -k4,4nr -k5,5nr "$out/runs.tsv" |
		awk -F'\t' '{ printf "%-32s %-52s %6d %6d %6d %8.1f%s\n", $1, $2, $3, $4, $5, $6,
				   ($4 + $5 > 0) ? "  FLAKY" : "" }'
} >"$table"
echo
cat "$table"
exit "$any_failed"
}
