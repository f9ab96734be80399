#!/usr/bin/env bash
# Every installed header compiles alone, in C11, C17 and C++17, with only the
# flags a user gets from rcuproc.pc: a header that needs another included
# first, a C-only construct or a missing extern "C" fails here.
#
# usage: headers.sh INCLUDE_DIR CC CXX|- -- CFLAGS...
#   CXX "-" means no C++ compiler was found: the C++ column is reported as
#   not run and the script fails, so that a silent skip cannot pass.
set -euo pipefail
include=$1 cc=$2 cxx=$3
shift 3
[ "${1:-}" = -- ] && shift
cflags=("$@")
failed=0 checked=0

compile() {	# compile LANG STD DRIVER HEADER
	local out
	if ! out=$(printf '#include <rcuproc/%s>\nint rp_header_check_anchor;\n' "$4" |
			"$3" -std="$2" -x "$1" -fsyntax-only -Wall -Wextra -Werror \
				-I"$include" "${cflags[@]}" - 2>&1); then
		echo "FAIL $4 alone in $2:"
		printf '%s\n' "$out" | head -5
		failed=$((failed + 1))
	fi
	checked=$((checked + 1))
}

for path in "$include"/rcuproc/*.h; do
	header=$(basename "$path")
	compile c c11 "$cc" "$header"
	compile c c17 "$cc" "$header"
	if [ "$cxx" = - ]; then
		echo "FAIL $header in c++17: no C++ compiler found (install g++)"
		failed=$((failed + 1))
	else
		compile c++ c++17 "$cxx" "$header"
	fi
done
echo "$checked compiles, $failed failed"
[ "$checked" -gt 0 ] && [ "$failed" -eq 0 ]
