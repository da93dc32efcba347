#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: builds encd's Debian packages with the distribution's own tools
# (dpkg-buildpackage, debhelper, dh-dkms) from a copy of the source tree in
# OUT/encd-VERSION/, then checks them with lintian. The version is the top
# Makefile's ENCD_VERSION, written into a debian/changelog made for the build.
#
#   deb.sh --top CHECKOUT --out OUT --version VERSION
#
# OUT gets the .deb files, the source package (3.0 native), the .changes
# and .buildinfo, and lintian.txt. Exits non-zero if the build fails or
# lintian reports an error (warnings are printed, and allowed).
set -eu

top='' out='' version=''
while [ $# -gt 0 ]; do
	case $1 in
	--top) top=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--version) version=$2; shift 2 ;;
	*) sed -n '/^#   deb.sh/s/^# \{0,3\}//p' "$0" >&2; exit 2 ;;
	esac
done
if [ -z "$top" ] || [ -z "$out" ] || [ -z "$version" ]; then
	echo "usage: $0 --top CHECKOUT --out OUT --version VERSION" >&2
	exit 2
fi
for tool in dpkg-buildpackage dh dh_dkms lintian fakeroot; do
	command -v "$tool" >/dev/null || { echo "deb: $tool is missing: run 'make deps'" >&2; exit 1; }
done

mkdir -p "$out"
# Two lanes may build at once (each installs the packages in its VM).
exec 9>"$out/.lock"
flock 9

src=$out/encd-$version
# The files git tracks, as the working tree has them: whatever else lies
# there (a binary built by hand, an editor's backup) is not the source. A
# tree that is no git checkout (an unpacked source package) goes whole,
# without what builds add.
tree() {
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$top" ls-files -z --cached |
			tar -C "$top" --null --ignore-failed-read -T - "$@" -cf -
	else
		tar -C "$top" --exclude=./build --exclude=./.git --exclude=__pycache__ "$@" -cf - .
	fi
}
# The date of the newest commit, so that one tree always gives one changelog.
when=${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct 2>/dev/null || date +%s)}

report() {
	echo "deb: lintian:"
	sed 's/^/  /' "$out/lintian.txt"
	[ -s "$out/lintian.txt" ] || echo "  (nothing to report)"
	for deb in "$out"/*.deb; do
		echo "deb: built ${deb##*/}"
	done
}

# Packages built from the same contents (file times aside) are reused: the
# lanes for both kernels install the same ones.
hash=$( (tree --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner
	echo "$version $when") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$out/source.sha256" 2>/dev/null)" = "$hash" ]; then
	echo "deb: $out has the packages of this tree already"
	report
	exit 0
fi

find "$out" -mindepth 1 -maxdepth 1 ! -name .lock -exec rm -rf {} +
mkdir -p "$src"
tree | tar -C "$src" -xf -

maintainer=$(sed -n 's/^Maintainer: //p' "$src/debian/control")
cat >"$src/debian/changelog" <<EOF
encd ($version) unstable; urgency=medium

  * encd $version, packaged by \`make deb\` from the top Makefile's ENCD_VERSION.

 -- $maintainer  $(date -R -u -d "@$when")
EOF

echo "deb: building encd $version in $src"
start=$(date +%s)
(cd "$src" && dpkg-buildpackage -us -uc) >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log"
	echo "deb: dpkg-buildpackage failed, see $out/build.log" >&2
	exit 1
}
changes=$(ls "$out"/encd_"$version"_*.changes)
# lintian would rather not run as root.
as=()
[ "$(id -u)" != 0 ] || as=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/nonexistent)
"${as[@]}" lintian --display-info --fail-on error "$changes" >"$out/lintian.txt" 2>&1 && lrc=0 || lrc=$?
report
echo "deb: $(($(date +%s) - start))s"
[ "$lrc" = 0 ] || { echo "deb: lintian found errors" >&2; exit 1; }
echo "$hash" >"$out/source.sha256"
