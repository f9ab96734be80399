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

# expect_lines STATUS FILE TEXT...: `rcuproc replay --verbose FILE` exits
# STATUS and says each TEXT.
expect_lines() {
	local status=$1 file=$2 text
	shift 2
	for text; do
		expect "$status" "$text" --verbose "$file"
	done
}

tmpns=$(mktemp -d)
trap 'rm -rf "$tmpns"' EXIT

# What replay cannot follow is refused at that call, before anything after
# it is compared: exit 4, and so it counts in the total and in --json.  A
# recording made without --pidns-translation has no number in strace's
# namespace for a child forked inside another; a user namespace maps ids.
pidns=$dir/bad/pidns_unshare.strace
expect 4 "pidns_unshare.strace:28: pid 11249 clone(child_stack=NULL, flags=0x1200000|17, child_tidptr=0x7f272985ea10): a child numbered in its parent's pid namespace with no note of its number in strace's: record with strace --pidns-translation" \
	"$pidns"
expect 4 "userns_unshare.strace:12: pid 5731 unshare(0x30000000): enters a user namespace, whose uid and gid mapping rcuproc does not model: the recording is refused" \
	"$dir/bad/userns_unshare.strace"
expect 4 "total: 2 recordings (1 matched, 0 unreadable, 1 refused)" "$dir/corpus/nice_sh.strace" "$pidns"
json=$("$rcuproc" replay --json "$pidns" 2> /dev/null)
if ! python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin]
assert rows[0]["outcome"] == "refused" and rows[1]["refused"] == 1, rows
' <<< "$json"; then
	echo "FAIL: replay --json of a refused recording"
	failed=1
fi

# A pid of a namespace below strace's is compared as the caller there sees
# it: each number Linux would not have given is a mismatch at its line.
expect_lines 1 "$dir/handmade/pidns_wrong_pid.strace" \
	"8: pid 102 getpid(): result: recorded 2, rcuproc 1" \
	"11: pid 103 getppid(): result: recorded 3, rcuproc 1" \
	"12: pid 103 kill(3 /* 102 in strace's PID NS */, 0): the number of pid 102 in the caller's namespace: recorded 3, rcuproc 1" \
	"15: pid 102 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL): result: recorded 5, rcuproc -1 ECHILD" \
	"3 tasks, 12 calls replayed, 0 skipped, 4 mismatches"

# Namespace files: pid_for_children refused before its namespace's init,
# setns through a handle the recording opened, and the
# namespace calls replay skips, each with its reason.
expect_lines 0 "$dir/handmade/pidns_files.strace" \
	"6: pid 101 openat: a namespace of a type rcuproc does not model" \
	"7: pid 101 setns: a namespace of a type rcuproc does not model" \
	"8: pid 101 setns: a failed setns on a file the recording did not open" \
	"9: pid 101 openat: a file outside the process table" \
	"3 tasks, 18 calls replayed, 4 skipped, 0 mismatches"
# A setns on a descriptor never opened, and an open under /proc by a pid
# from inside a namespace, cannot be followed.
printf '%s\n101 setns(5, 0x20000000) = 0\n' '# recorder-pid: 100' > "$tmpns/setns.strace"
expect 4 "setns.strace:2: pid 101 setns(5, 0x20000000): enters the pid namespace of a file the recording did not show opened" \
	"$tmpns/setns.strace"
printf '%s\n' '# recorder-pid: 100' '101 unshare(0x20000000) = 0' \
	'101 clone(child_stack=NULL, flags=0x1200000|17) = 102' \
	'102 openat(-100, "/proc/1/ns/pid", 0) = 3' > "$tmpns/inside.strace"
expect 4 "inside.strace:4: pid 102 openat(-100, \"/proc/1/ns/pid\", 0): opens a task's namespace under /proc from inside a pid namespace" \
	"$tmpns/inside.strace"

# clone3's set_tid in strace's own namespace, the machine's numbers: one
# asked of a task of the recording is compared, one a process outside it
# may hold is skipped.
expect_lines 0 "$dir/handmade/set_tid_root.strace" \
	"11: pid 101 clone3: set_tid asks for a number of strace's pid namespace that a process outside the recording may hold: the machine's answer" \
	"3 tasks, 15 calls replayed, 1 skipped, 0 mismatches"
# A number of strace's namespace that rcuproc gave another task cannot be
# asked for.
printf '%s\n' '# recorder-pid: 100' \
	'101 clone3({flags=0, exit_signal=17, set_tid=[3], set_tid_size=1}, 88) = 3' > "$tmpns/taken.strace"
expect 4 "taken.strace:2: pid 101 clone3({flags=0, exit_signal=17, set_tid=[3], set_tid_size=1}, 88): set_tid asks for a number of strace's pid namespace that rcuproc gave a task of the replay already" \
	"$tmpns/taken.strace"

# Pidfds: what is replayed, what is skipped, and a wrong answer reported.
pidfd=$dir/handmade/pidfd.strace
expect_lines 0 "$pidfd" \
	"14: pid 101 setns: a namespace of a type rcuproc does not model" \
	"16: pid 101 pidfd_send_signal: a descriptor the recording did not show opened by pidfd_open" \
	"17: pid 101 pidfd_send_signal: a siginfo or flags of pidfd_send_signal, not modelled" \
	"3 tasks, 14 calls replayed, 3 skipped, 0 mismatches"
sed '24s/= -1 ESRCH (No such process)/= 0/' "$pidfd" > "$tmpns/pidfd_reaped.strace"
expect 1 "pidfd_reaped.strace:24: pid 101 pidfd_send_signal(3, 0, NULL, 0): result: recorded 0, rcuproc -1 ESRCH" \
	"$tmpns/pidfd_reaped.strace"
sed '21s/= -1 ESRCH (No such process)/= 0/' "$pidfd" > "$tmpns/pidfd_exited.strace"
expect 1 "pidfd_exited.strace:21: pid 101 setns(3, 0x20000000): result: recorded 0, rcuproc -1 ESRCH" \
	"$tmpns/pidfd_exited.strace"

# --verbose gives every skipped call its own reason.
skips=$dir/handmade/skips.strace
for reason in "4: pid 101 execve: a failed exec: the file system answered" \
	"6: pid 101 ioctl: a terminal ioctl outside the process table" \
	"7: pid 101 prctl: a prctl option outside the process table" \
	"8: pid 101 ptrace: strace traces every task it follows already" \
	"9: pid 101 timer_create: a wall-clock timer" \
	"10: pid 101 rt_sigreturn: no handler frame to return from" \
	"11: pid 101 waitid: P_PIDFD on a descriptor the recording did not show opened by pidfd_open" \
	"12: pid 101 wait4: interrupted: no effect, the call is issued again" \
	"13: pid 101 ppoll: not interrupted: its mask left no trace" \
	"14: pid 101 getuid: not a call rcuproc models" \
	"16: pid 101 ptrace: a ptrace request rcuproc does not model" \
	"2 tasks, 3 calls replayed, 11 skipped, 0 mismatches"; do
	expect 0 "$reason" --verbose "$skips"
done

# A limit Linux counts over the whole machine: the recording is said not to
# replay exactly, and the answer that hit the limit is noted, not a mismatch.
limit=$dir/handmade/sigpending_limit.strace
expect 0 "sigpending_limit.strace:4: pid 101 sets RLIMIT_SIGPENDING, which Linux counts per user" "$limit"
expect 0 "inexact $limit:6: pid 101 rt_sigqueueinfo(101, 34, " "$limit"
expect 0 "0 mismatches (not exact: it sets a limit counted over the machine; 1 answers noted)" "$limit"

# Recordings people bring: each bad input says what is wrong, exit 2.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$tmpns"' EXIT
good=$dir/corpus/nice_sh.strace
header='# recorder-pid: 400'

expect 2 "$tmp/none.strace: No such file or directory" "$tmp/none.strace"
expect 2 "$tmp: Is a directory" "$tmp"
if [ "$(id -u)" != 0 ]; then	# root reads a file of mode 000 anyway
	printf '%s\n' "$header" > "$tmp/unreadable.strace"
	chmod 000 "$tmp/unreadable.strace"
	expect 2 "unreadable.strace: Permission denied" "$tmp/unreadable.strace"
fi

# Binary garbage is quoted, never written to the terminal as it is.
printf '%s\n500 \033[2J\001\377(\n' "$header" > "$tmp/garbage.strace"
expect 2 "garbage.strace:2: expected 'name(args) = result'" "$tmp/garbage.strace"
expect 2 'the line: 500 \x1b[2J\x01\xff(' "$tmp/garbage.strace"
if "$rcuproc" replay "$tmp/garbage.strace" 2>&1 | grep -q $'\033'; then
	echo "FAIL: an escape byte of the recording reached the output"
	failed=1
fi
printf '%s\n500 getppid()\0 = 400\n' "$header" > "$tmp/nul.strace"
expect 2 'nul.strace:2: a NUL byte in the line: not a text file' "$tmp/nul.strace"

# strace without -X raw, or without -f; a truncated line; no header.
printf '%s\n500 kill(501, SIGTERM) = 0\n' "$header" > "$tmp/names.strace"
expect 2 "names.strace:2: a constant's name where strace -X raw prints a number" "$tmp/names.strace"
printf '%s\nkill(501, 15) = 0\n' "$header" > "$tmp/nopid.strace"
expect 2 "nopid.strace:2: a call without the pid before it: record with 'strace -f'" "$tmp/nopid.strace"
{ cat "$good"; printf '500 kill(501, '; } > "$tmp/cut.strace"
expect 2 "cut.strace:$(($(wc -l < "$good") + 1)): the argument list never closes: the line is cut short" \
	"$tmp/cut.strace"
printf '%s\n500 getppid()\n' "$header" > "$tmp/noresult.strace"
expect 2 "noresult.strace:2: no '= result' after the arguments: the line is cut short" \
	"$tmp/noresult.strace"
printf '500 getppid() = 400\n' > "$tmp/noheader.strace"
expect 2 "noheader.strace:1: a traced line before the '# recorder-pid: N' header" \
	"$tmp/noheader.strace"
printf '%s\n500 +++ vanished +++\n' "$header" > "$tmp/end.strace"
expect 2 "end.strace:2: expected '+++ exited with N +++'" "$tmp/end.strace"
printf '%s\n500 <... wait4 resumed>) = 0\n' "$header" > "$tmp/resumed.strace"
expect 2 "resumed.strace:2: a call resumed that this pid did not leave unfinished" \
	"$tmp/resumed.strace"

# A header alone replays nothing, and says so.
grep '^#' "$good" > "$tmp/header.strace"
expect 2 "header.strace: nothing to replay: no traced line after the header" "$tmp/header.strace"

# CRLF line endings and standard input are read as they are meant.
sed 's/$/\r/' "$good" > "$tmp/crlf.strace"
expect 0 "crlf.strace: 1 tasks" "$tmp/crlf.strace"
out=$("$rcuproc" replay - < "$good" 2>&1)
if [ $? != 0 ] || [[ "$out" != *"replay -: 1 tasks"* ]]; then
	echo "FAIL: replay - < $good: $out"
	failed=1
fi

# scripts/record.sh -o FILE: a command with a line break and quotes stays
# one header line, quoted, and the recording replays.
if strace -o /dev/null true 2> /dev/null; then
	"$dir/../../scripts/record.sh" quoting -o "$tmp/quoting.strace" --note $'two\nlines' \
		-- sh -c $'true\n: "q" \'x\'; exit 3' > /dev/null
	want=$'# command: sh -c $\'true\\n: "q" \\\'x\\\'; exit 3\''
	if [ "$(grep '^# command:' "$tmp/quoting.strace")" != "$want" ] ||
	   [ "$(grep -c '^# note: two lines$' "$tmp/quoting.strace")" != 1 ]; then
		echo "FAIL: record.sh header:"
		grep '^#' "$tmp/quoting.strace"
		failed=1
	fi
	expect 0 "quoting.strace: 1 tasks" "$tmp/quoting.strace"
fi

# Several recordings end with a total line; --json writes one object per
# recording and one for the total, each on its line.
expect 2 "total: 3 recordings (1 matched, 1 unreadable, 0 refused)" \
	"$good" "$dir/altered/proc_errors_eperm.strace" "$tmp/none.strace"
json=$("$rcuproc" replay --json "$good" "$dir/altered/proc_errors_eperm.strace" \
	"$tmp/none.strace" 2> /dev/null)
if ! python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin]
assert [r.get("outcome") for r in rows[:3]] == ["matched", "mismatch", "unreadable"], rows
assert rows[1]["mismatches"] == 1 and rows[1]["lines"][0].startswith("MISMATCH "), rows[1]
assert rows[3]["type"] == "total", rows[3]
assert rows[3]["recordings"] == 3 and rows[3]["mismatches"] == 1, rows[3]
' <<< "$json"; then
	echo "FAIL: replay --json:"
	echo "$json"
	failed=1
fi

# Memory follows the live tasks, not the file: 20 times the lines of one
# task take no more memory.
lines() {
	echo "$header"
	yes '500 getppid()                         = 400' | head -n "$1"
	printf '500 exit_group(0) = ?\n500 +++ exited with 0 +++\n'
}
lines 20000 > "$tmp/small.strace"
lines 400000 > "$tmp/large.strace"
# (An ASan build would keep what is freed in quarantine: it is told not to.)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0
small=$( { /usr/bin/time -f %M "$rcuproc" replay "$tmp/small.strace" > /dev/null; } 2>&1)
large=$( { /usr/bin/time -f %M "$rcuproc" replay "$tmp/large.strace" > /dev/null; } 2>&1)
if [ "$large" -gt $((small + 4096)) ]; then
	echo "FAIL: 400000 lines take ${large} KB, 20000 take ${small} KB"
	failed=1
fi

exit $failed
