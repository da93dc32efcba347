#!/bin/bash
# Prints the directory of Debian's linux-source-6.1 tree, extracting the
# tarball into a cache outside the checkout the first time (it is large, and
# the selftest headers, checkpatch.pl and the debug kernel all come from it).
set -eu

cache=${ENCD_CACHE:-/var/cache/encd}
tarball=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null || true)
dir=$cache/linux-source-6.1

if [ ! -f "$dir/Makefile" ]; then
	[ -n "$tarball" ] || { echo "linux-source-6.1 is not installed: run 'make deps'" >&2; exit 1; }
	mkdir -p "$cache"
	exec 9>"$cache/.source.lock"
	flock 9
	if [ ! -f "$dir/Makefile" ]; then
		tmp=$(mktemp -d "$cache/.extract.XXXXXX")
		tar -xJf "$tarball" -C "$tmp"
		rm -rf "$dir"
		mv "$tmp/linux-source-6.1" "$dir"
		rmdir "$tmp"
	fi
fi
echo "$dir"
