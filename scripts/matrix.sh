#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The broken-variant matrix: every RP_BREAK_* switch in the code base, the
# tests that must catch it (the build's broken/SWITCH/... tests, and SPIN
# models whose README names it), and, after `meson test --suite broken`,
# whether each test caught it and how long it took (meson-logs/testlog.json).
#
#   scripts/matrix.sh [--markdown] BUILD_DIR [LOG...]
#                              the report (text or Markdown); with LOG files
#                              (testlog.json of several runs, as
#                              scripts/stress-suite.sh keeps them), the
#                              catch rate over those runs and the slowest
#                              catch, instead of the build's last run
#   scripts/matrix.sh --coverage BUILD_DIR
#                              only check that every switch has a catching
#                              test (no run)
#
# Exit 1 if a switch has nothing that catches it, or (report) if a broken
# test that ran passed.  Needs jq.
set -euo pipefail

usage() {
	echo "usage: $0 [--markdown | --coverage] BUILD_DIR" >&2
	exit 2
}

format=text
case "${1:-}" in
--markdown) format=markdown; shift ;;
--coverage) format=coverage; shift ;;
--help|-h) sed -n '3,21p' "$0"; exit 0 ;;
esac
[ $# -ge 1 ] || usage
[ "$format" = coverage ] && [ $# -ne 1 ] && usage
build=$1
shift
logs=("$@")
src=$(cd "$(dirname "$0")/.." && pwd)
tests_json=$build/meson-info/intro-tests.json
[ ${#logs[@]} -eq 0 ] && [ -f "$build/meson-logs/testlog.json" ] &&
	logs=("$build/meson-logs/testlog.json")
[ -f "$tests_json" ] || { echo "$0: no $tests_json: not a configured build" >&2; exit 2; }

switches=$(grep -rhoE 'RP_BREAK_[A-Z0-9_]+' "$src/src" "$src/include" | sort -u | sed 's/^RP_BREAK_//')
# Switches whose broken step a QSBR build cannot reach, and which have no
# row there (tests/meson.build says why for each).
flavour=$(jq -r '.[] | select(.name == "rcu_flavour") | .value' "$build/meson-info/intro-buildoptions.json")
memb_only=" RECLAIM_OWN_ROW_ONLY "

# Tests of switch $1 in this build: broken/SWITCH/...
tests_of() {
	jq -r --arg p "broken/$1/" '.[] | select(.name | startswith($p)) | .name' "$tests_json"
}

# SPIN models named next to switch $1 in models/README.md.
models_of() {
	grep -l "RP_BREAK_$1\b" "$src/models/README.md" >/dev/null 2>&1 && echo "spin models" || true
}

# "caught runs seconds" of test $1 over the logs: how many runs caught the
# switch (the test failed as it should), in how many runs it ran, and the
# slowest of those runs; nothing if it never ran.
run_of() {
	[ ${#logs[@]} -eq 0 ] && return 0
	jq -rs --arg n "$1" '[.[] | select((.name | sub("^.* / "; "")) == $n)]
		| select(length > 0)
		| "\([.[] | select(.result == "EXPECTEDFAIL")] | length) \(length) \(map(.duration) | max)"' \
		"${logs[@]}"
}

missing=0
failed=0
[ "$format" = markdown ] && printf '| switch | caught by | caught (runs) | slowest (s) |\n|---|---|---|---|\n'
[ "$format" = text ] && printf '%-24s %-52s %-14s %s\n' SWITCH "CAUGHT BY" CAUGHT SLOWEST
for s in $switches; do
	[ "$flavour" = qsbr ] && [[ $memb_only == *" $s "* ]] && continue
	catchers=$(tests_of "$s"; models_of "$s")
	if [ -z "$catchers" ]; then
		echo "$0: RP_BREAK_$s: no test or model catches it" >&2
		missing=1
		catchers="(nothing)"
	fi
	[ "$format" = coverage ] && continue
	while read -r t; do
		caught= ran= secs=
		read -r caught ran secs <<<"$(run_of "$t")" || true
		if [ -z "$ran" ]; then
			result="not run"
		else
			result="$caught/$ran"
			[ "$caught" -eq "$ran" ] || { result="$result NOT CAUGHT"; failed=1; }
		fi
		secs=${secs:+$(printf '%.1f' "$secs")}
		[ "$t" = "spin models" ] && result="see spin_models" && secs=
		if [ "$format" = markdown ]; then
			printf '| %s | %s | %s | %s |\n' "$s" "$t" "$result" "${secs:--}"
		else
			printf '%-24s %-52s %-14s %s\n' "$s" "$t" "$result" "${secs:--}"
		fi
	done <<<"$catchers"
done
[ "$format" = coverage ] && [ $missing -eq 0 ] && echo "every RP_BREAK_* switch has a catching test or model"
exit $(( missing || failed ))
