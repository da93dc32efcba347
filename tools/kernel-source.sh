#!/bin/bash
# Prints the directory of one of Debian's linux-source trees, extracting the
# tarball into a cache outside the checkout the first time.
#
#   kernel-source.sh [6.1]   the whole 6.1 tree: the selftest headers,
#                            checkpatch.pl and the debug kernel come from it
#   kernel-source.sh 6.12    only YNL from 6.12 (tools/net/ynl and the netlink
#                            schemas and specs in Documentation/netlink): the
#                            generator of the netlink code and the YNL CLI;
#                            the rest of the tree (over 1 GB) is never needed
set -eu

version=${1:-6.1}
case $version in
6.1) parts=() ;;
6.12) parts=(tools/net/ynl Documentation/netlink) ;;
*)
	echo "kernel-source.sh: no linux-source-$version here (6.1 or 6.12)" >&2
	exit 2
	;;
esac

cache=${ENCD_CACHE:-/var/cache/encd}
tarball=/usr/src/linux-source-$version.tar.xz
dir=$cache/linux-source-$version
# What a finished extraction leaves, checked before taking the lock.
done_file=$dir/Makefile
[ ${#parts[@]} -eq 0 ] || done_file=$dir/tools/net/ynl/ynl-gen-c.py

if [ ! -f "$done_file" ]; then
	[ -f "$tarball" ] || {
		echo "linux-source-$version is not installed: run 'make deps'" >&2
		exit 1
	}
	mkdir -p "$cache"
	exec 9>"$cache/.source.lock"
	flock 9
	if [ ! -f "$done_file" ]; then
		tmp=$(mktemp -d "$cache/.extract.XXXXXX")
		tar -xJf "$tarball" -C "$tmp" "${parts[@]/#/linux-source-$version/}"
		rm -rf "$dir"
		mv "$tmp/linux-source-$version" "$dir"
		rmdir "$tmp"
	fi
fi
echo "$dir"
