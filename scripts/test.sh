#!/usr/bin/env bash
# The whole test suite, three times: a gcc build, a clang AddressSanitizer +
# UndefinedBehaviorSanitizer build, and a build on liburcu's QSBR flavour.
# The SPIN models do not depend on the build: the gcc build checks them.
# Ends with the failed tests, each with the end of its output (CI keeps only
# the tail of a run), then one line "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0
failed=0
failures=()

# count_results BUILD_DIR: add the build's meson test results to the totals.
count_results() {
	local log="$1/meson-logs/testlog.json"
	[ -f "$log" ] || { failed=$((failed + 1)); return; }
	local ok bad
	ok=$(grep -cE '"result": "(OK|EXPECTEDFAIL)"' "$log")
	bad=$(grep -cE '"result": "(FAIL|UNEXPECTEDPASS|TIMEOUT|ERROR)"' "$log")
	passed=$((passed + ok))
	failed=$((failed + bad))
	[ "$bad" -eq 0 ] || failures+=("$log")
}

# show_failures LOG...: each failed test of each log, named with its build,
# and the last lines of what it printed.
show_failures() {
	python3 - "$@" <<'PY'
import json, sys
for log in sys.argv[1:]:
    build = log.split("/meson-logs/")[0]
    for line in open(log):
        t = json.loads(line)
        if t["result"] in ("FAIL", "UNEXPECTEDPASS", "TIMEOUT", "ERROR"):
            print(f"== {t['result']} in {build}: {t['name']}")
            out = (t.get("stdout") or "").splitlines()
            for l in out[-40:]:
                print("   " + l)
PY
}

# The suite needs a debug build: race windows, poisoning, the lock-order
# checker (the default build is the release one users install).
test_options=(-Dbuildtype=debugoptimized -Ddebug_checks=true -Dtests=enabled)

run_suite() {
	local dir="$1"; shift
	echo "== $dir: meson setup ${test_options[*]} $*"
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "${test_options[@]}" "$@" >/dev/null ||
			{ failed=$((failed + 1)); return; }
	fi
	ninja -C "$dir" >/dev/null || { echo "build failed in $dir"; failed=$((failed + 1)); return; }
	# Two tests at a time on the 2 CPUs: most tests wait part of the time
	# (grace periods, threads held at race points), and each must pass on a
	# loaded machine anyway; they share no names (mkstemp/mkdtemp).
	meson test -C "$dir" --print-errorlogs --num-processes 2
	count_results "$dir"
}

# The broken-variant matrix: every row in the gcc build, where every twin
# must be caught; in the QSBR build the rows whose twins race grace periods;
# none in the sanitizer build (meson_options.txt, broken_matrix).
run_suite build
CC=clang run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false \
	-Dc_args=-fno-sanitize-recover=all -Dmodels=false -Dbroken_matrix=none
run_suite build-qsbr -Drcu_flavour=qsbr -Dmodels=false -Dbroken_matrix=flavour

[ "${#failures[@]}" -eq 0 ] || show_failures "${failures[@]}"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
