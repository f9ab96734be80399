#!/usr/bin/env bash
# One man page of the rcuproc command, made by help2man from its --help:
# `man.sh RCUPROC OUT` the command's page, rcuproc(1), with a SEE ALSO of
# every subcommand's; `man.sh RCUPROC OUT SUB` the page of subcommand SUB,
# rcuproc-SUB(1), named with the line `rcuproc --help` gives it.
#
# usage: man.sh RCUPROC OUTPUT [SUBCOMMAND]   (HELP2MAN: the help2man to run)
set -euo pipefail
rcuproc=$(realpath "$1") out=$2 sub=${3:-}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The subcommands and their lines, as `rcuproc --help` lists them.
subcommands() {
	"$rcuproc" --help | awk '/^subcommands:/ { on = 1; next } on && NF == 0 { on = 0 } on'
}

# help2man runs a program by itself: this one is `rcuproc [SUB]`, and says
# "Usage:" where rcuproc says "usage:", which help2man takes for the SYNOPSIS.
prog=$scratch/rcuproc${sub:+-$sub}
printf '#!/bin/sh\n"%s" %s "$@" | sed "s/^usage:/Usage:/"\n' "$rcuproc" "$sub" >"$prog"
chmod +x "$prog"

extra=$scratch/extra.h2m
if [ -z "$sub" ]; then
	name="a process table under RCU: self-checks, torture, replay, benchmarks, demo"
	{
		echo "[SEE ALSO]"
		subcommands | awk '{ printf ".BR rcuproc-%s (1),\n", $1 }'
		echo ".BR librcuproc (3)"
	} >"$extra"
else
	name=$(subcommands | awk -v s="$sub" '$1 == s { $1 = ""; sub(/^ +/, ""); print }')
	[ -n "$name" ] || { echo "man.sh: rcuproc --help does not list '$sub'" >&2; exit 1; }
	printf '[SEE ALSO]\n.BR rcuproc (1),\n.BR librcuproc (3)\n' >"$extra"
fi
# The version alone: --version's whole line would not fit the page's footer.
version=$("$rcuproc" --version | awk '{ print $2; exit }')
"${HELP2MAN:-help2man}" --no-info --section 1 --name "$name" --version-string "$version" \
	--include "$extra" --output "$out" "$prog"
