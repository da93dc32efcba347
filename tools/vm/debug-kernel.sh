#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds the debug lane's kernel, once per machine: linux-source-6.1 with
# allnoconfig plus tools/vm/debug.config (KASAN, lockdep, kmemleak, failslab),
# in a cache outside the checkout keyed by a hash of the fragment, the source
# version and the compiler. Prints the build directory: it is the KDIR to
# build the module against, and holds arch/x86/boot/bzImage.
set -eu
# Braces: bash reads the whole script before running it, so an edit to this
# file while it runs (for up to an hour) cannot derail it.
{

# A kernel build of its own: none of the caller's make variables or jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL

here=$(cd "$(dirname "$0")" && pwd)
cache=${ENCD_CACHE:-/var/cache/encd}
fragment=$here/debug.config
src=$("$here/../kernel-source.sh")

version=$(make -s -C "$src" kernelversion)
hash=$({ cat "$fragment"; echo "$version"; gcc --version | head -n 1; } | sha256sum | cut -c 1-12)
dir=$cache/debug-kernel-$hash

if [ ! -f "$dir/.encd-built" ]; then
	mkdir -p "$dir"
	# Two lanes started together build it once.
	exec 9>"$dir.lock"
	flock 9
fi
if [ -f "$dir/.encd-built" ]; then
	echo "debug kernel: $dir, $(cat "$dir/.encd-built")" >&2
	echo "$dir"
	exit 0
fi

log=$dir/build.log
: >"$log"
kmake() {
	if ! make -C "$src" O="$dir" -j"$(nproc)" "$@" >>"$log" 2>&1; then
		tail -n 40 "$log" >&2
		echo "debug kernel: 'make $*' failed, see $log" >&2
		exit 1
	fi
}

start=$(date +%s)
echo "debug kernel: building $version in $dir (takes minutes; log: $log)" >&2
kmake KCONFIG_ALLCONFIG="$fragment" allnoconfig
kmake olddefconfig

# allnoconfig quietly drops what it cannot satisfy: insist on every line.
missing=0
while read -r line; do
	case $line in
	CONFIG_*=*) grep -qxF "$line" "$dir/.config" && continue ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		grep -qE "^$opt=[ym]" "$dir/.config" || continue ;;
	*) continue ;;
	esac
	echo "debug kernel: not in .config: $line" >&2
	missing=$((missing + 1))
done <"$fragment"
if [ $missing -gt 0 ]; then
	echo "debug kernel: $missing option(s) of $fragment did not survive olddefconfig" >&2
	exit 1
fi

kmake all
elapsed=$(($(date +%s) - start))
echo "built in ${elapsed}s" >"$dir/.encd-built"
echo "debug kernel: built in ${elapsed}s" >&2
echo "$dir"
exit
}
