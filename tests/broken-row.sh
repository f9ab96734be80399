#!/usr/bin/env bash
# Run one row of the broken-twin matrix: the test program and its
# arguments.  Exits with the program's status, except when Criterion's
# runner is left waiting after its worker is gone.
#
# Criterion 2.4.1's runner can wait for ever for a worker that has died
# messily: seen with a twin's assertion failing in the test's thread while
# another thread of the worker crashed (ASan's SEGV report), and with a
# worker killed by SIGSEGV; the runner then sat in pthread_cond_wait until
# meson's timeout made a caught twin a TIMEOUT.  So: once the worker is
# gone (the runner has no child) and the runner has not exited within
# GRACE seconds, the row's test did not pass, and this script says so and
# exits 1.  A twin that is not caught still passes (exit 0) or hangs with
# its worker alive until meson's timeout: neither is taken for a catch.
set -u
GRACE=30
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1 &
runner=$!
# Meson's timeout: show what the row printed so far, and take its
# processes down with it.
on_term() {
	cat "$out"
	echo "broken-row.sh: stopped by meson's timeout" >&2
	pkill -9 -P "$runner" 2>/dev/null
	kill -9 "$runner" 2>/dev/null
	exit 1
}
trap on_term TERM INT
had_worker=false
gone_since=0
while kill -0 "$runner" 2>/dev/null; do
	if pgrep -P "$runner" >/dev/null; then
		had_worker=true
		gone_since=0
	elif $had_worker; then
		[ "$gone_since" -eq 0 ] && gone_since=$SECONDS
		if [ $((SECONDS - gone_since)) -ge "$GRACE" ]; then
			cat "$out"
			echo "broken-row.sh: the worker is gone and Criterion's runner has" \
			     "not exited in ${GRACE} s: the test did not pass" >&2
			kill -9 "$runner" 2>/dev/null
			exit 1
		fi
	fi
	sleep 0.2
done
wait "$runner"
status=$?
cat "$out"
exit "$status"
