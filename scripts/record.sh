#!/usr/bin/env bash
# Record a real program's process-management calls for 'rcuproc replay'.
#
#   scripts/record.sh NAME [--note TEXT] [-o FILE] -- COMMAND [ARGS...]
#
# Runs COMMAND under strace -f in a new session (so that the recorder is a
# session and process-group leader, which replay reproduces), keeps only the
# calls rcuproc models, and stores the result as
# tests/replay/corpus/NAME.strace (or FILE) with a header saying what
# produced it.  COMMAND runs in the repository's top directory.
# See docs/replay.md.
set -euo pipefail
usage="usage: $0 NAME [--note TEXT] [-o FILE] -- COMMAND [ARGS...]"
top=$(cd "$(dirname "$0")/.." && pwd)

calls=clone,clone3,fork,vfork,execve,exit,exit_group,wait4,waitid
calls+=,kill,tkill,tgkill,rt_sigqueueinfo,rt_sigaction,rt_sigprocmask,rt_sigsuspend,rt_sigreturn,pselect6,ppoll
calls+=,setpgid,getpgid,getpgrp,setsid,getsid,getppid,getpid,gettid
calls+=,setpriority,getpriority,ioprio_set,ioprio_get,prctl,ptrace
calls+=,timer_create,timer_settime,timer_gettime,timer_getoverrun,timer_delete,ioctl
calls+=,setuid,setresuid,setgroups,capset,setrlimit,prlimit64
# Pid namespaces; openat only for the namespace files setns takes (the
# others are dropped below).
calls+=,unshare,setns,openat
# pidfds: the descriptor setns and pidfd_send_signal take.
calls+=,pidfd_open,pidfd_send_signal
# -q: no attach/detach notes, but keep "+++ exited with N +++";
# -X raw: numbers instead of flag and constant names (one parser, no tables);
# --pidns-translation: a pid of another pid namespace is followed by its
# number in strace's, the one replay knows the task by.
options=(-f -q -X raw --pidns-translation -e "trace=$calls" -e signal=all)

[ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }
name=$1
shift
note=""
out=$top/tests/replay/corpus/$name.strace
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	case $1 in
	--note) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; note=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; out=$(realpath -m -- "$2"); shift 2 ;;
	*) echo "record.sh: unknown option '$1'; $usage" >&2; exit 2 ;;
	esac
done
[ $# -ge 2 ] || { echo "record.sh: expected -- and a command; $usage" >&2; exit 2; }
shift
cd "$top"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The recorder's pid is the one that execs strace: its session and group id.
# Every signal starts at SIG_DFL (a background shell ignores SIGINT/SIGQUIT),
# as every task of a fresh rcuproc system.
setsid --wait bash -c 'echo $$ > "$1"; shift; exec env --default-signal strace "$@"' record \
	"$tmp/pid" "${options[@]}" -o "$tmp/trace" "$@" || true

# The header is one line per field whatever the words hold: the command
# quoted as the shell would take it back, the note's line breaks as spaces.
{
	echo "# rcuproc replay recording: ${name//[$'\n\r']/ }"
	printf '# command:'
	printf ' %q' "$@"
	echo
	[ -n "$note" ] && echo "# note: ${note//[$'\n\r']/ }"
	echo "# produced by: scripts/record.sh ($(strace -V | head -1))"
	echo "# options: ${options[*]}"
	echo "# recorder-pid: $(cat "$tmp/pid")"
	# An openat of anything but /proc/.../ns/pid* goes, with its "resumed" line.
	awk '
		$2 ~ /^openat\(/ {
			ns = $0 ~ /"\/proc\/[^"]*\/ns\/pid/
			if ($0 ~ /<unfinished \.\.\.>$/)
				open_ns[$1] = ns
			if (ns)
				print
			next
		}
		$2 == "<..." && $3 == "openat" {
			if (open_ns[$1])
				print
			delete open_ns[$1]
			next
		}
		{ print }
	' "$tmp/trace"
} > "$out"
echo "recorded $out ($(wc -l < "$out") lines)"
