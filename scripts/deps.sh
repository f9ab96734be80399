#!/usr/bin/env bash
# Install the Debian packages rcuproc needs to build and test, if missing.
# As root it runs apt-get; otherwise it prints the command and fails.
set -euo pipefail

# jq: scripts/matrix.sh; gnuplot-nox: the demo's and the benchmark's plots.
packages=(gcc clang libclang-rt-14-dev make pkg-config meson ninja-build
          liburcu-dev libcriterion-dev spin jq gnuplot-nox)

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
