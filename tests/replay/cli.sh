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

exit $failed
