#!/usr/bin/env bash
# Record a real program's process-management calls for 'rcuproc replay'.
#
#   scripts/record.sh NAME [--note TEXT] -- COMMAND [ARGS...]
#
# Runs COMMAND under strace -f in a new session (so that the recorder is a
# session and process-group leader, which replay reproduces), keeps only the
# calls rcuproc models, and stores the result as
# tests/replay/corpus/NAME.strace with a header saying what produced it.
# See docs/replay.md.
set -euo pipefail
cd "$(dirname "$0")/.."

calls=clone,clone3,fork,vfork,execve,exit,exit_group,wait4,waitid
calls+=,kill,tkill,tgkill,rt_sigqueueinfo,rt_sigaction,rt_sigprocmask,rt_sigsuspend,rt_sigreturn,pselect6,ppoll
calls+=,setpgid,getpgid,getpgrp,setsid,getsid,getppid
calls+=,setpriority,getpriority,ioprio_set,ioprio_get,prctl,ptrace
calls+=,timer_create,timer_settime,timer_gettime,timer_getoverrun,timer_delete,ioctl
# -q: no attach/detach notes, but keep "+++ exited with N +++";
# -X raw: numbers instead of flag and constant names (one parser, no tables).
options=(-f -q -X raw -e "trace=$calls" -e signal=all)

[ $# -ge 3 ] || { echo "usage: $0 NAME [--note TEXT] -- COMMAND [ARGS...]" >&2; exit 2; }
name=$1
shift
note=""
if [ "$1" = "--note" ]; then
	note=$2
	shift 2
fi
[ "$1" = "--" ] || { echo "record.sh: expected -- before the command" >&2; exit 2; }
shift

out=tests/replay/corpus/$name.strace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The recorder's pid is the one that execs strace: its session and group id.
# Every signal starts at SIG_DFL (a background shell ignores SIGINT/SIGQUIT),
# as every task of a fresh rcuproc system.
setsid --wait bash -c 'echo $$ > "$1"; shift; exec env --default-signal strace "$@"' record \
	"$tmp/pid" "${options[@]}" -o "$tmp/trace" "$@" || true

{
	echo "# rcuproc replay recording: $name"
	echo "# command: $*"
	[ -n "$note" ] && echo "# note: $note"
	echo "# produced by: scripts/record.sh ($(strace -V | head -1))"
	echo "# options: ${options[*]}"
	echo "# recorder-pid: $(cat "$tmp/pid")"
	cat "$tmp/trace"
} > "$out"
echo "recorded $out ($(wc -l < "$out") lines)"
