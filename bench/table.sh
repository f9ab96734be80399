#!/bin/bash
# A markdown table of one bench/run.sh result file: a row per workload, kind,
# threads and size; for each mode its operations per second and p99.
#
#   bench/table.sh bench/results/suite-memb.jsonl [bench/results/suite-qsbr.jsonl]
#
# Rows of a second file (the QSBR build) join as the column "rcu (qsbr)".
set -euo pipefail

awk -f "$(dirname "$0")/json.awk" -f /dev/stdin "$@" <<'AWK'
function human(x) {
	x += 0
	if (x >= 1e6) return sprintf("%.1fM", x / 1e6)
	if (x >= 1e3) return sprintf("%.0fk", x / 1e3)
	return sprintf("%.0f", x)
}
function dur(ns) {
	ns += 0
	if (ns >= 1e6) return sprintf("%.1f ms", ns / 1e6)
	if (ns >= 1e3) return sprintf("%.1f us", ns / 1e3)
	return sprintf("%d ns", ns)
}
get($0, "type") != "result" { next }
{
	mode = get($0, "mode")
	if (get($0, "flavour") == "qsbr") {
		if (mode != "rcu") next
		mode = "rcu (qsbr)"
	}
	row = get($0, "workload") " | " get($0, "kind") " | " get($0, "threads") \
	      (get($0, "oversubscribed") == "true" ? "*" : "") " | " get($0, "size")
	if (!(row in seen)) { seen[row] = 1; order[++rows] = row }
	cell[row, mode] = human(get($0, "ops_per_sec")) " / " dur(get($0, "p99_ns"))
}
END {
	n = split("rcu|rcu (qsbr)|rwlock|qrwlock|none", modes, "|")
	printf "| workload | kind | threads | size |"
	for (m = 1; m <= n; m++) printf " %s |", modes[m]
	printf "\n|---|---|---|---|"
	for (m = 1; m <= n; m++) printf "---|"
	printf "\n"
	for (r = 1; r <= rows; r++) {
		printf "| %s |", order[r]
		for (m = 1; m <= n; m++) printf " %s |", ((order[r], modes[m]) in cell) ? cell[order[r], modes[m]] : ""
		printf "\n"
	}
}
AWK
