#!/bin/bash
# What a second thread can give on this machine at all: a workload in rcu
# mode at one thread alone, then two independent processes of one thread
# side by side (they share nothing but the machine: its CPUs, caches and
# memory, and the host under a virtual one), then two threads in one
# process; the three one after the other in each round, so that a round's
# ratios compare measurements of the same moment.
#
#   bench/ceiling.sh            (B=BINARY S=SECONDS R=ROUNDS W="WORKLOADS")
#
# Prints each round's rates and the two ratios to the one thread alone:
# two processes (the machine's ceiling), and two threads (the library's).
set -euo pipefail
B=${B:-$(dirname "$0")/../build-release/tools/rcuproc}
S=${S:-1}
R=${R:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$B" ] || { echo "ceiling.sh: no $B (meson setup build-release; ninja -C build-release)" >&2; exit 2; }
rate() { # workload mode threads -> ops/s of the last kind
	"$B" bench --workload "$1" --mode "$2" --threads "$3" --seconds "$S" --repeat 1 --json 2>/dev/null |
		grep '"type":"result"' | tail -1 | sed 's/.*"ops_per_sec":\([0-9.]*\).*/\1/'
}
for w in ${W:-fork_own}; do
for r in $(seq "$R"); do
	solo=$(rate "$w" rcu 1)
	rate "$w" rcu 1 > "$tmp/a" & rate "$w" rcu 1 > "$tmp/b"; wait
	t2=$(rate "$w" rcu 2)
	awk -v w="$w" -v r="$r" -v s="$solo" -v a="$(cat "$tmp/a")" -v b="$(cat "$tmp/b")" \
	    -v t="$t2" -v l="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
		printf "%s round %d: solo %.0f  two processes %.0f (%.2fx)  T=2 %.0f (%.2fx)  load %s\n",
		       w, r, s, a + b, (a + b) / s, t, t / s, l }'
done
done
