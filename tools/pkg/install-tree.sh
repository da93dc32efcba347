#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What `make install` and `make uninstall` do with a staged tree. Each part
# of the install (module, library and tools, system files, DKMS source) is
# first installed into a stage of its own, so that its file list is known
# whatever the makefile that staged it (lib/lib.mk's install-lib among them)
# put there; this script copies the stage into DESTDIR and records, in a
# manifest, every file it copied and every directory it had to create.
# Uninstalling removes exactly those: the files, then each recorded
# directory that is empty again.
#
#   install-tree.sh install STAGE DESTDIR MANIFEST
#   install-tree.sh uninstall DESTDIR MANIFEST...
#
# DESTDIR may be empty (the live system). Manifest lines are "f PATH" and
# "d PATH", PATH as seen without DESTDIR. A second install of the same part
# adds to its manifest, so that an uninstall still removes what the first
# one created.
set -eu

usage() {
	sed -n '/^#   install-tree/s/^# \{0,3\}//p' "$0" >&2
	exit 2
}

install_tree() {
	local stage=$1 dest=$2 manifest=$3 p rec
	[ -d "$stage" ] || { echo "install-tree: no stage $stage" >&2; exit 1; }
	mkdir -p "$(dirname "$manifest")"
	rec=$(mktemp "$manifest.XXXXXX")
	# Parents sort before their children.
	while IFS= read -r -d '' p; do
		p=${p#.}
		if [ -d "$stage$p" ] && [ ! -L "$stage$p" ]; then
			if [ ! -d "$dest$p" ]; then
				install -d -m "$(stat -c %a "$stage$p")" "$dest$p"
				echo "d $p" >>"$rec"
			fi
		else
			# A symlink replaces whatever is there; a file keeps its mode.
			rm -f "$dest$p"
			cp -P --preserve=mode,timestamps "$stage$p" "$dest$p"
			echo "f $p" >>"$rec"
			echo "  $dest$p"
		fi
	done < <(cd "$stage" && find . -mindepth 1 -print0 | LC_ALL=C sort -z)
	cat "$manifest" 2>/dev/null >>"$rec" || true
	LC_ALL=C sort -u -o "$rec" "$rec"
	mv "$rec" "$manifest"
}

uninstall_tree() {
	local dest=$1 m kind p
	shift
	for m in "$@"; do
		while read -r kind p; do
			[ "$kind" = f ] || continue
			if [ -e "$dest$p" ] || [ -L "$dest$p" ]; then
				rm -f "$dest$p"
				echo "  removed $dest$p"
			fi
		done <"$m"
	done
	# Deepest first; a directory that holds something else now stays.
	for m in "$@"; do
		sed -n 's/^d //p' "$m"
	done | LC_ALL=C sort -r -u | while IFS= read -r p; do
		if [ -d "$dest$p" ] && rmdir "$dest$p" 2>/dev/null; then
			echo "  removed $dest$p/"
		fi
	done
	rm -f "$@"
}

[ $# -ge 1 ] || usage
case $1 in
install)
	[ $# = 4 ] || usage
	install_tree "$2" "$3" "$4" ;;
uninstall)
	[ $# -ge 3 ] || usage
	shift
	uninstall_tree "$@" ;;
*) usage ;;
esac
