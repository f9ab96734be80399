#!/bin/bash
# Draw the benchmark plots (gnuplot, PNG and SVG) from bench/run.sh's JSON lines.
#
#   bench/plot.sh [RESULTS_DIR]      (default bench/results; images to $IMG,
#                                     default docs/img)
#
#   bench-threads    throughput against threads, per mode
#   bench-fork-latency  the distribution of fork's latency under read storms
#   bench-sizes      cost of one operation against the table size
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
res=${1:-$src/bench/results}
img=${IMG:-$src/docs/img}
dat=$(mktemp -d)
trap 'rm -rf "$dat"' EXIT
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$img"

# select FILE FILTER... : lines whose "key":"value" pairs all match.
# Prints FIELDS (env, space-separated keys) of each, one line each.
select_rows() {
	local file=$1
	shift
	awk -v filters="$*" -v fields="$FIELDS" -f "$src/bench/json.awk" -f /dev/stdin \
		"$file" <<'AWK'
	{
		n = split(filters, f, " ")
		for (i = 1; i <= n; i++) {
			split(f[i], kv, "=")
			if (get($0, kv[1]) != kv[2]) next
		}
		m = split(fields, out, " ")
		line = ""
		for (i = 1; i <= m; i++) line = line (i > 1 ? " " : "") get($0, out[i])
		print line
	}
AWK
}

# Series: one data file per mode (and the QSBR flavour's rcu, where measured).
series() {	# series NAME FILE-STEM FILTERS... -> $dat/NAME-MODE.dat
	local name=$1 stem=$2
	shift 2
	for m in rcu rwlock qrwlock none; do
		[ -f "$res/$stem-memb.jsonl" ] &&
			select_rows "$res/$stem-memb.jsonl" mode=$m "$@" >"$dat/$name-$m.dat"
	done
	[ -f "$res/$stem-qsbr.jsonl" ] &&
		select_rows "$res/$stem-qsbr.jsonl" mode=rcu "$@" >"$dat/$name-qsbr.dat"
	return 0
}

# The plot command of one panel: a line per non-empty series.
lines() {	# lines NAME USING
	local name=$1 using=$2 sep="plot"
	for m in rcu qsbr rwlock qrwlock none; do
		local f=$dat/$name-$m.dat title=$m
		[ "$m" = qsbr ] && title="rcu (qsbr)"
		[ "$m" = rcu ] && title="rcu (memb)"
		[ "$m" = none ] && title="none (unsynchronized)"
		[ -s "$f" ] || continue
		printf "%s '%s' using %s with linespoints title '%s'" "$sep" "$f" "$using" "$title"
		sep=","
	done
	printf '\n'
}

panel() {	# panel TITLE NAME USING: one plot of a multiplot
	printf "set title '%s'\n" "$1"
	lines "$2" "$3"
}

render() {	# render NAME SIZE  (the gnuplot body on stdin)
	local body
	body=$(cat)
	for term in "pngcairo noenhanced size $2 font ',10'|png" "svg noenhanced size $2 dynamic font ',10'|svg"; do
		gnuplot <<-GP
			set terminal ${term%|*}
			set output '$img/$1.${term#*|}'
			set grid
			set key top left
			$body
		GP
	done
}

FIELDS="threads ops_per_sec"
series thr-kill0 threads workload=kill0
series thr-storm threads workload=lookup_storm kind=kill\(pid,0\)
series thr-fork threads workload=fork_exit kind=fork+exit+wait
render bench-threads 1500,500 <<GP
set multiplot layout 1,3 title 'throughput against threads (2 CPUs: 3 and 4 threads are oversubscribed)'
set xlabel 'threads'; set xtics 1; set ylabel 'operations per second'; set logscale y
$(panel 'kill(pid, 0), no writers' thr-kill0 1:2)
$(panel 'kill(pid, 0) readers while 1 thread forks and reaps' thr-storm 1:2)
$(panel 'fork+exit+wait' thr-fork 1:2)
unset multiplot
GP

FIELDS="p10_ns p25_ns p50_ns p75_ns p90_ns p99_ns p999_ns p9999_ns max_ns"
for w in lookup_storm fork_killall fork_ps; do
	series "lat-$w" suite workload=$w kind=fork threads=2
	for f in "$dat"/lat-$w-*.dat; do	# the largest table's percentiles -> a column
		tail -n 1 "$f" | tr ' ' '\n' | awk 'NF { print NR, $1 }' >"$f.col"
		mv "$f.col" "$f"
	done
done
render bench-fork-latency 1500,500 <<GP
set multiplot layout 1,3 title 'fork latency while another thread reads (the largest table run)'
set xtics ('p10' 1, 'p25' 2, 'p50' 3, 'p75' 4, 'p90' 5, 'p99' 6, 'p99.9' 7, 'p99.99' 8, 'max' 9)
set ylabel 'ns'; set logscale y
$(panel 'under kill(pid, 0) lookups' lat-lookup_storm 1:2)
$(panel 'under kill(-1, 0) over the table' lat-fork_killall 1:2)
$(panel 'under ps scans of the table' lat-fork_ps 1:2)
unset multiplot
GP

FIELDS="size ops_per_sec"
for w in kill0 getpgid kill_all ps wait_scan; do
	series "size-$w" sizes workload=$w
done
series size-killpg groups workload=killpg
per_op='1:(1e9/$2)'
render bench-sizes 1500,900 <<GP
set multiplot layout 2,3 title 'cost of one operation against the size of the table (or group), 1 thread'
set xlabel 'processes'; set ylabel 'ns per operation'; set logscale xy
$(panel 'kill(pid, 0) (pid_max 4,194,304)' size-kill0 "$per_op")
$(panel 'getpgid(pid)' size-getpgid "$per_op")
$(panel 'kill(-1, 0) over the table' size-kill_all "$per_op")
$(panel 'ps listing of the table' size-ps "$per_op")
$(panel 'wait4(-1, WNOHANG) over that many children' size-wait_scan "$per_op")
$(panel 'killpg to a group of that many' size-killpg "$per_op")
unset multiplot
GP
echo "plots in $img: bench-threads, bench-fork-latency, bench-sizes (.png, .svg)" >&2
