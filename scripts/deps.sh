#!/usr/bin/env bash
# Install the Debian packages rcuproc needs, if missing: `deps.sh run` what
# the library, the command and the demo need; `deps.sh test` that and what
# the test suite needs on top.  As root it runs apt-get; otherwise it prints
# the command and fails.
set -euo pipefail

# gnuplot-nox: the demo's and the benchmark's plots.
packages=(gcc make pkg-config meson ninja-build liburcu-dev gnuplot-nox)
case "${1:-test}" in
run) ;;
# clang and its runtime: the ASan+UBSan build; g++: the headers' C++ check;
# jq: scripts/matrix.sh and the tests of the JSON output; spin: the models;
# help2man and groff: the man pages (man/), made and checked.
test) packages+=(clang libclang-rt-14-dev g++ libcriterion-dev spin jq help2man groff-base) ;;
*) echo "usage: deps.sh run|test" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "rcuproc: missing Debian packages: ${missing[*]}" >&2
	echo "run: sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi
echo "rcuproc: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
