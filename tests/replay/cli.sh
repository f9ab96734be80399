#!/usr/bin/env bash
# rcuproc replay on recordings people bring: each bad input gets its
# message and exit status (docs/replay.md).  Usage: cli.sh RCUPROC DIR,
# DIR being tests/replay.
set -uo pipefail
rcuproc=$1
dir=$2
failed=0

# expect STATUS TEXT ARGS...: `rcuproc replay ARGS` exits STATUS and its
# standard error or output contains TEXT.
expect() {
	local status=$1 text=$2 out got
	shift 2
	out=$("$rcuproc" replay "$@" 2>&1)
	got=$?
	if [ "$got" != "$status" ] || [[ "$out" != *"$text"* ]]; then
		echo "FAIL: replay $*: expected status $status and '$text', got status $got:"
		echo "$out" | head -20
		failed=1
	fi
}

# A replay that cannot go on is reported where it stuck, not held.
expect 3 "stuck_exec.strace:5: stuck for 1 s replaying pid 101 (rcuproc 3) execve(\"/bin/true\"" \
	--watchdog 1 "$dir/bad/stuck_exec.strace"

# --verbose gives every skipped call its own reason.
skips=$dir/handmade/skips.strace
for reason in "4: pid 101 execve: a failed exec: the file system answered" \
	"6: pid 101 ioctl: a terminal ioctl outside the process table" \
	"7: pid 101 prctl: a prctl option outside the process table" \
	"8: pid 101 ptrace: strace traces every task already" \
	"9: pid 101 timer_create: a wall-clock timer" \
	"10: pid 101 rt_sigreturn: no handler frame to return from" \
	"11: pid 101 waitid: P_PIDFD: file descriptors are not modelled" \
	"12: pid 101 wait4: interrupted: no effect, the call is issued again" \
	"13: pid 101 ppoll: not interrupted: its mask left no trace" \
	"14: pid 101 getuid: not a call rcuproc models" \
	"1 tasks, 2 calls replayed, 10 skipped, 0 mismatches"; do
	expect 0 "$reason" --verbose "$skips"
done

exit $failed
