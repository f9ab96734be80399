#!/usr/bin/env bash
# The man pages render without a warning (groff -ww), and every subcommand
# `rcuproc --help` lists has its page, which names it, and is named in
# rcuproc(1).
#
# usage: man-check.sh RCUPROC PAGES_DIR LIBRCUPROC_3
set -euo pipefail
rcuproc=$1 dir=$2 lib_page=$3
failed=0

# The page as text; its warnings make it fail.
render() {
	local warnings
	warnings=$(groff -man -Tutf8 -ww -z "$1" 2>&1)
	if [ -n "$warnings" ]; then
		echo "FAIL: $1: groff warns: $warnings" >&2
		return 1
	fi
	groff -man -Tutf8 -P -cbou "$1"
}

subs=$("$rcuproc" --help | awk '/^subcommands:/ { on = 1; next } on && NF == 0 { on = 0 } on { print $1 }')
[ -n "$subs" ] || { echo "FAIL: rcuproc --help lists no subcommand" >&2; exit 1; }
main=$(render "$dir/rcuproc.1") || failed=1
for sub in $subs; do
	grep -qw -- "$sub" <<<"$main" || { echo "FAIL: rcuproc(1) does not name $sub" >&2; failed=1; }
	if [ ! -f "$dir/rcuproc-$sub.1" ]; then
		echo "FAIL: no rcuproc-$sub.1" >&2
		failed=1
		continue
	fi
	page=$(render "$dir/rcuproc-$sub.1") || { failed=1; continue; }
	grep -q -- "rcuproc $sub \[OPTIONS\]" <<<"$page" ||
		{ echo "FAIL: rcuproc-$sub(1) has no synopsis of rcuproc $sub" >&2; failed=1; }
done
# bench and ps say how far their tables go: the whole pid space.
for sub in bench ps; do
	page=$(render "$dir/rcuproc-$sub.1" | tr -s ' \n' '  ') || { failed=1; continue; }
	grep -q "whole pid space, pids 1 to 4194303\|whole pid space (pids 1 to 4194303)" <<<"$page" ||
		{ echo "FAIL: rcuproc-$sub(1) does not say its table can fill the pid space" >&2; failed=1; }
done
lib=$(render "$lib_page") || failed=1
grep -q "rp_system_create" <<<"$lib" || { echo "FAIL: librcuproc(3) misses the API" >&2; failed=1; }
[ "$failed" -eq 0 ] && echo "ok: rcuproc(1), $(wc -w <<<"$subs") subcommand pages, librcuproc(3)"
exit "$failed"
