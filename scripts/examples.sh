#!/usr/bin/env bash
# The examples as a user builds them: install the build into a scratch
# directory, then compile each examples/*.c with the flags pkg-config gives
# for the installed library, as C11 and as C++17, and run it.
#
# usage: examples.sh BUILD_DIR SOURCE_DIR PC_NAME CC CXX
set -euo pipefail
build=$1 source=$2 pc=$3 cc=$4 cxx=$5
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

meson install -C "$build" --destdir "$scratch/root" --no-rebuild --quiet >/dev/null
pcfile=$(find "$scratch/root" -name "$pc.pc" | head -1)
[ -n "$pcfile" ] || { echo "FAIL: $pc.pc was not installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pcfile") PKG_CONFIG_SYSROOT_DIR="$scratch/root"
read -r -a flags <<<"$(pkg-config --cflags --libs "$pc")"
libdir=$(dirname "$(find "$scratch/root" -name "lib$pc.so*" | head -1)")

ran=0
for example in "$source"/examples/*.c; do
	name=$(basename "$example" .c)
	"$cc" -std=c11 -Wall -Wextra -Werror -o "$scratch/$name-c" "$example" "${flags[@]}"
	"$cxx" -std=c++17 -Wall -Wextra -Werror -x c++ -o "$scratch/$name-cxx" "$example" \
		-x none "${flags[@]}"
	for bin in "$scratch/$name-c" "$scratch/$name-cxx"; do
		echo "== $(basename "$bin")"
		LD_LIBRARY_PATH="$libdir" "$bin"
		ran=$((ran + 1))
	done
done
echo "$ran example runs"
[ "$ran" -gt 0 ]
