#!/usr/bin/env bash
# Rebuild tests/replay/corpus: compile the programs of this directory, make a
# small project for make, and record every entry with scripts/record.sh.
# Recordings hold real pids and timing: rerunning changes the files, never
# what a correct rcuproc must answer.  Usage: record_corpus.sh [NAME...]
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
for p in proc_errors subreaper sigqueue killstorm thread_exec nested_handlers waitid_many ppoll_restart thread_stop creds cpu_timer trace_child pidns pidns_setns clone3_set_tid pidfd_setns; do
	cc -O1 -pthread -o "$bin/$p" "tests/replay/programs/$p.c"
done

# make -j4 on a generated project: four sources, a link, cheap recipes.
mkdir "$bin/proj"
for i in 1 2 3 4; do echo "part $i" > "$bin/proj/f$i.c"; done
printf '%s\n' 'OBJS = f1.o f2.o f3.o f4.o' \
	'prog: $(OBJS)' '	cat $(OBJS) > $@' \
	'%.o: %.c' '	cp $< $@' > "$bin/proj/Makefile"
printf '%s\n' 'all: a b c' 'a:' '	false' 'b:' '	true' 'c:' '	exit 3' > "$bin/fail.mk"

record() {
	local name=$1
	shift
	if [ ${#wanted[@]} -eq 0 ] || [[ " ${wanted[*]} " == *" $name "* ]]; then
		scripts/record.sh "$name" "$@" > /dev/null 2>&1 </dev/null
		echo "recorded $name"
	fi
}
wanted=("$@")

record dash_pipeline -- dash -c 'sleep 0 | cat | wc -c; ( exit 4 ); echo $?'
record dash_selfkill -- dash -c 'true; kill -TERM $$'
record xargs_parallel -- sh -c 'seq 1 6 | xargs -P 3 -n 1 sh -c "exit \$0"; echo $?'
record xargs_killed --note "a child killed by a signal stops xargs (status 125)" \
	-- sh -c 'seq 1 3 | xargs -n 1 sh -c "kill -KILL \$\$"; echo $?'
record nohup_true -- nohup sh -c 'true'
record timeout_ok -- timeout 5 sh -c 'exit 7'
record timeout_expire -- timeout -s INT 0.2 sleep 5
record timeout_kill --note "the child ignores SIGTERM; -k sends SIGKILL" \
	-- timeout -k 0.3 0.1 sh -c 'trap "" TERM; sleep 3'
record nice_sh -- nice -n 5 sh -c 'exit 0'
record setsid_cmd -- setsid sh -c 'exit 2'
record setsid_fork --note "setsid -f: the group leader forks first" -- setsid -f -w sh -c 'exit 6'
record make_j4 --note "make -j4 on a generated project of four files" -- make -s -C "$bin/proj" -j4 prog
record make_fail --note "make -k -j2 with two failing recipes" -- make -s -k -j2 -f "$bin/fail.mk"
record bash_script -- bash -c 'for i in 1 2 3; do ( exit $i ) & done; wait; f() { return 3; }; f; echo $? | cat >/dev/null; exit 5'
record bash_trap -- bash -c 'trap "echo got" USR1; kill -USR1 $$; sleep 0.1 & wait $!; kill -0 $!; exit 0'
record bash_killchild -- bash -c 'sleep 5 & kill -KILL $!; wait $!; echo $?'
record bash_jobs --note "job control without a terminal: set -m, a pipeline, SIGINT to a group, wait -n" \
	-- bash -c 'set -m; sleep 0.1 | cat; sleep 5 & kill -INT -$!; (exit 3) & wait -n; wait; exit 0'
record bash_stop_cont --note "SIGTSTP, SIGCONT and SIGTERM to a background job; a job that stops itself, continued through its group" \
	-- bash -c 'set -m; sleep 5 & pid=$!; kill -TSTP $pid; sleep 0.1; kill -CONT $pid; sleep 0.1; kill $pid; wait; (kill -STOP $BASHPID; sleep 0.2; exit 3) & sleep 0.2; kill -CONT -$!; wait'
record bash_orphan_stop --note "the shell exits, leaving a stopped job in an orphaned group: SIGHUP and SIGCONT" \
	-- bash -c 'set -m; (kill -STOP $BASHPID; exit 0) & sleep 0.2; exit 0'
record find_exec -- find tests/replay/programs -name "*.c" -exec true {} \;
record env_chain -- env -i /usr/bin/env true
record perl_system -- perl -e 'system("exit 3"); $p=fork(); if(!$p){exit 4} waitpid($p,0); kill 0, $p; exit($?>>8)'
record proc_errors -- "$bin/proc_errors"
record subreaper -- "$bin/subreaper"
record sigqueue -- "$bin/sigqueue"
record killstorm -- "$bin/killstorm"
record thread_exec_leader --note "the leader execs while a thread runs: the thread dies first" \
	-- "$bin/thread_exec" leader
record thread_exec_thread --note "a thread execs: it takes the leader's pid, the leader is superseded" \
	-- "$bin/thread_exec" thread
record nested_handlers --note "twelve handlers nested, each frame with its own mask" \
	-- "$bin/nested_handlers"
record waitid_many --note "waitid(P_ALL) and waitid(P_PGID) choosing among three zombies" \
	-- "$bin/waitid_many"
record ppoll_restart --note "ppoll interrupted by an ignored SIGCHLD: the saved mask is back before the restart" \
	-- "$bin/ppoll_restart"
record thread_stop --note "SIGSTOP to a threaded process: the other thread takes part in the group stop" \
	-- "$bin/thread_stop"
record creds --note "setresuid, setuid, setgroups, capset, a capability prctl and limits" \
	-- "$bin/creds"
record cpu_timer --note "a one-shot SIGEV_SIGNAL timer on the process CPU clock fires while the program burns CPU" \
	-- "$bin/cpu_timer"
record trace_child --note "the parent seizes its own child, cloned with CLONE_UNTRACED so that strace -f does not follow it: the child's lines are not recorded, replay drives it" \
	-- "$bin/trace_child"
record pidns_clone --note "clone(CLONE_NEWPID): init reads 1 and 0, its children their numbers there, kill(-1) inside, waits by the numbers there, and its end kills the child left" \
	-- "$bin/pidns"
record pidns_setns --note "setns into a namespace through /proc/PID/ns/pid, a fork there (getppid 0), back through /proc/self/ns/pid; the init killed from outside" \
	-- "$bin/pidns_setns"
record unshare_sh --note "unshare --pid --fork --mount-proc: the shell is pid 1 of its namespace, its children 2 and 3" \
	-- env PATH=/usr/bin:/bin unshare --pid --fork --mount-proc sh -c 'echo $$; sleep 0 & wait $!; kill -0 $$; (exit 3); echo $?'
record unshare_nested --note "a namespace inside a namespace: each shell is pid 1 of its own, kill(-1) from the inner one" \
	-- env PATH=/usr/bin:/bin unshare --pid --fork sh -c 'unshare --pid --fork sh -c "kill -0 1; sleep 0 & kill -USR1 -1; wait; exit 4"; echo $?'
record pidns_thread_exec --note "a thread execs in a namespace's init: it takes the leader's pid there (1) and outside" \
	-- env PATH=/usr/bin:/bin unshare --pid --fork "$bin/thread_exec" thread
record clone3_set_tid --note "clone3 with set_tid as a namespace's init: 700 asked and given, then refused (EEXIST, EEXIST, EINVAL, EINVAL), a nested init asked 1 there and 705 here whose child asks 710 and 711, and EPERM without CAP_SYS_ADMIN" \
	-- env PATH=/usr/bin:/bin unshare --pid --fork "$bin/clone3_set_tid"
record pidfd_setns --note "setns through a pidfd into a namespace's init's pid namespace, a fork there (getpid 2, getppid 0), EINVAL and ESRCH, the init killed and reaped through the pidfd" \
	-- "$bin/pidfd_setns"
