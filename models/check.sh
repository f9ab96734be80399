#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# models/check.sh: run every SPIN model of models/ in each variant.
#
# A correct variant must verify exhaustively with 0 errors; a broken variant
# must produce a counterexample (errors > 0).  Prints one table row per run
# (model, variant, expected, result, states, seconds, status) and exits 1 if
# any correct variant fails or any broken variant passes (or a run cannot be
# built), 2 if spin or a C compiler is missing.
#
# Verifiers are generated and compiled in a temporary directory, removed on
# exit.  Options:
#   -k         keep the temporary directory (its path is printed), to replay a
#              counterexample: cd DIR/N && spin -t -p $(cat defs) MODEL.pml
#              (N is the run's row number, defs holds its -D flags)
#   -m MODEL   run only MODEL (the file name without .pml); repeatable
#   -h         this help
set -u

here=$(cd "$(dirname "$0")" && pwd)
keep=0
only=()
while getopts "km:h" opt; do
	case $opt in
	k) keep=1 ;;
	m) only+=("$OPTARG") ;;
	h) sed -n '4,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) exit 2 ;;
	esac
done

cc=${CC:-gcc}
for tool in spin "$cc"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "check.sh: $tool not found (Debian: apt-get install spin gcc)" >&2
		exit 2
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rcuproc-models.XXXXXX") || exit 2
if [ "$keep" = 1 ]; then
	echo "check.sh: keeping $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi

# model  variant(spin -D flags, or "correct")  expected(verify|fail)  kind(safety|liveness)
runs=(
	"fork_group_signal   correct                          verify safety"
	"fork_group_signal   BROKEN_HEAD                      fail   safety"
	"fork_group_signal   BROKEN_CHECK_FIRST               fail   safety"
	"setpgid_proxy       correct                          verify safety"
	"setpgid_proxy       BROKEN_RELINK                    fail   safety"
	"ptrace_detach_wait  correct                          verify safety"
	"ptrace_detach_wait  BROKEN_NO_MARK                   fail   safety"
	"ptrace_detach_wait  BROKEN_NO_GEN                    fail   safety"
	"ptrace_detach_wait  BROKEN_ADD_ORDER                 fail   safety"
	"ptrace_detach_wait  BROKEN_NO_RESTART                fail   safety"
	"ptrace_detach_wait  LIVENESS                         verify liveness"
	"ptrace_detach_wait  LIVENESS,BROKEN_NO_RESTART       fail   liveness"
	"children_splice_wait correct                         verify safety"
	"children_splice_wait BROKEN_ONE_BY_ONE               fail   safety"
	"sighand_switch      correct                          verify safety"
	"sighand_switch      BROKEN_NO_RECHECK                fail   safety"
	"sighand_switch      BROKEN_NO_GRACE                  fail   safety"
	"prio_fork           correct                          verify safety"
	"prio_fork           BROKEN_COPY_FIRST                fail   safety"
	"prio_fork           BROKEN_UNLOCKED                  fail   safety"
	"pidmap_alloc        correct                          verify safety"
	"pidmap_alloc        THREE                            verify safety"
	"pidmap_alloc        BROKEN_PLAIN_RMW                 fail   safety"
	"pidmap_alloc        BROKEN_SKIP_ON_CONFLICT          fail   safety"
	"pidmap_alloc        DENSE                            verify safety"
	"pidmap_alloc        DENSE,BROKEN_PLAIN_RMW           fail   safety"
	"pidmap_alloc        DENSE,BROKEN_SKIP_ON_CONFLICT    fail   safety"
	"reparent_exiting    correct                          verify safety"
	"reparent_exiting    BROKEN_NO_RECHECK                fail   safety"
	"reparent_exiting    BROKEN_CLOSE_UNLOCKED            fail   safety"
	"orphan_jobc         correct                          verify safety"
	"orphan_jobc         BROKEN_DEC_FIRST                 fail   safety"
	"orphan_jobc         BROKEN_WALK                      fail   safety"
	"orphan_jobc         BROKEN_NO_CHILD_LOCK             fail   safety"
	"orphan_jobc         BROKEN_LOAD_AFTER                fail   safety"
	"orphan_jobc         BROKEN_KILL_SHARED               fail   safety"
	"orphan_jobc         RETIE                            verify safety"
	"orphan_jobc         RETIE,BROKEN_NO_RECHECK          fail   safety"
	"setpgid_fork_kill   correct                          verify safety"
	"setpgid_fork_kill   BROKEN_READ_BEFORE_LOCK          fail   safety"
	"setpgid_fork_kill   BROKEN_MOVE_NO_TREE              fail   safety"
	"setpgid_fork_kill   BROKEN_MOVE_NO_MEMBER            fail   safety"
	"setpgid_fork_kill   FORK_BY_OLD_THREAD               verify safety"
	"setpgid_fork_kill   BROKEN_MOVE_LEADER_TREE_ONLY     fail   safety"
	"setpgid_fork_kill   FORK_BY_OLD_THREAD,BROKEN_MOVE_LEADER_TREE_ONLY fail safety"
	"setpgid_fork_kill   BROKEN_MOVE_NO_GROUP             fail   safety"
	"session_groups      correct                          verify safety"
	"session_groups      BROKEN_REAP_NO_SESSION           fail   safety"
	"claim_zombie        correct                          verify safety"
	"claim_zombie        BROKEN_NO_RECHECK                fail   safety"
	"claim_zombie        BROKEN_DETACH_ONE_LOCK           fail   safety"
	"claim_zombie        BROKEN_TRACED_REAP               fail   safety"
	"tasks_lazy_list     correct                          verify safety"
	"tasks_lazy_list     BROKEN_NO_RECHECK                fail   safety"
	"exec_dethread       correct                          verify safety"
	"exec_dethread       BROKEN_FORK_NO_CHECK             fail   safety"
	"exec_dethread       BROKEN_NO_KILL_CHECK             fail   safety"
	"exec_dethread       BROKEN_WAITS_IN_GATE             fail   safety"
	"cred_fold           correct                          verify safety"
	"cred_fold           BROKEN_NO_GRACE                  fail   safety"
	"cred_fold           BROKEN_NO_BIAS                   fail   safety"
	"update_gate         correct                          verify safety"
	"update_gate         BROKEN_NO_BARRIER                fail   safety"
	"update_gate         BROKEN_CHECK_FIRST               fail   safety"
	"update_gate         BROKEN_USED_FIRST                fail   safety"
	"ptrace_attach_exit  correct                          verify safety"
	"ptrace_attach_exit  BROKEN_PARENT_UNLOCKED           fail   safety"
	"ptrace_attach_exit  BROKEN_NO_RECHECK                fail   safety"
	"thread_clone_reparent correct                        verify safety"
	"thread_clone_reparent BROKEN_NO_RECHECK              fail   safety"
	"thread_clone_reparent BROKEN_UNLOCKED                fail   safety"
	"ptrace_request      correct                          verify safety"
	"ptrace_request      BROKEN_UNFROZEN                  fail   safety"
	"ptrace_request      BROKEN_TRACER_UNLOCKED           fail   safety"
	"trace_report        correct                          verify safety"
	"trace_report        BROKEN_NO_RECHECK                fail   safety"
	"trace_report        BROKEN_TRACER_UNLOCKED           fail   safety"
	"trace_report        BROKEN_JUDGED_UNLOCKED           fail   safety"
)

now() { date +%s.%N; }

fmt="%-21s %-28s %-8s %-26s %8s %8s  %s\n"
printf "$fmt" model variant expected result states seconds status
printf "$fmt" --------------------- ---------------------------- -------- \
	-------------------------- -------- -------- ------
bad=0
n=0
for run in "${runs[@]}"; do
	read -r model variant expected kind <<<"$run"
	if [ "${#only[@]}" -gt 0 ]; then
		match=0
		for m in "${only[@]}"; do [ "$m" = "$model" ] && match=1; done
		[ "$match" = 1 ] || continue
	fi
	n=$((n + 1))
	dir="$tmp/$n"
	mkdir -p "$dir"
	cp "$here/$model.pml" "$dir/"
	defs=()
	if [ "$variant" != correct ]; then
		IFS=, read -r -a names <<<"$variant"
		for d in "${names[@]}"; do defs+=("-D$d"); done
	fi
	# -O0: compiling a verifier at -O2 takes about 2 s of CPU, five times
	# -O0's, and every run but one explores a few thousand states; the
	# largest (pidmap_alloc THREE, 6.6 million) runs about 1.5 times longer.
	if [ "$kind" = liveness ]; then
		ccflags=(-O0 -DNP)
		panflags=(-m100000 -l -f)
	else
		ccflags=(-O0 -DSAFETY)
		panflags=(-m100000)
	fi
	printf '%s\n' "${defs[*]:-}" >"$dir/defs"

	result="" states="-" secs="-"
	if ! (cd "$dir" && spin "${defs[@]}" -a "$model.pml" >spin.out 2>&1); then
		result="spin error"
	elif ! (cd "$dir" && "$cc" "${ccflags[@]}" -o pan pan.c >cc.out 2>&1); then
		result="compile error"
	else
		t0=$(now)
		(cd "$dir" && ./pan "${panflags[@]}" >pan.out 2>&1)
		rc=$?
		t1=$(now)
		secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
		out="$dir/pan.out"
		errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' "$out" | tail -n 1)
		states=$(awk '/states, stored/ { print $1; exit }' "$out")
		[ -n "$states" ] || states="-"
		if [ -z "$errors" ]; then
			result="no verdict (pan rc $rc)"
		elif [ "$errors" = 0 ]; then
			if grep -q -e "search not completed" -e "max search depth too small" \
				-e "out of memory" "$out"; then
				result="incomplete search"
			else
				result="verified"
			fi
		else
			if grep -q -E "^pan:[0-9]+: assertion violated" "$out"; then
				result="counterexample: assert"
			elif grep -q -E "^pan:[0-9]+: invalid end state" "$out"; then
				result="counterexample: end state"
			elif grep -q -E "^pan:[0-9]+: non-progress cycle" "$out"; then
				result="counterexample: cycle"
			else
				result="counterexample"
			fi
		fi
	fi

	case "$expected:$result" in
	verify:verified | fail:counterexample*) status=ok ;;
	*) status=WRONG; bad=$((bad + 1)) ;;
	esac
	printf "$fmt" "$model" "$variant" "$expected" "$result" "$states" "$secs" "$status"
done

if [ "$n" = 0 ]; then
	echo "check.sh: no such model" >&2
	exit 2
fi
if [ "$bad" -gt 0 ]; then
	echo "check.sh: $bad of $n runs did not give the expected verdict" >&2
	exit 1
fi
echo "check.sh: all $n runs as expected"
