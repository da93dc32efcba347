#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-install-tree` (part of `make check`), on the host: nothing is
# loaded, and nothing is written outside build/.
#
#   check-install-tree.sh --top CHECKOUT --kver KVER --version VERSION
#
#   1. `make install DESTDIR=D ENCD_GROUP=encdcheck` puts exactly the files
#      expected in D: every header of lib/include/enc, linux/encd.h and
#      linux/encd_netlink.h, every
#      page of Documentation/man/man3, libenc and libenc-json (.so.1, .so, .a,
#      .pc), encctl with encctl(8) and its bash completion, the udev rule for
#      that group, the modprobe.d sample and encd.ko for KVER; nothing else
#   2. programs link against the installed libraries through their .pc files
#      (pkg-config with D as the sysroot): one with libenc alone, which then
#      needs no json-c, and one with libenc-json
#   3. the modprobe.d sample has a commented line for every parameter the
#      installed encd.ko has (modinfo reads the file) and sets none
#   4. `make uninstall DESTDIR=D` leaves D as it was: a file of someone else's
#      in a directory install shares stays, with its parents; a second
#      uninstall fails and says that nothing is installed
#   5. install-system refuses a group name that udev could not take
#   6. the DKMS tree (`make dkms-source`) holds kmod/ and uapi/ as they are
#      and a dkms.conf with the version; every kmod/*.c is an object kmod/Kbuild
#      builds
#
# Prints a line per check ("ok N name" or "not ok N name", with what went
# wrong), then "N passed, N failed"; exits non-zero if any failed.
set -u

usage() {
	echo "usage: $0 --top CHECKOUT --kver KVER --version VERSION" >&2
	exit 2
}
top='' kver='' version=''
while [ $# -gt 0 ]; do
	case $1 in
	--top) top=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--version) version=$2; shift 2 ;;
	*) usage ;;
	esac
done
if [ -z "$top" ] || [ -z "$kver" ] || [ -z "$version" ]; then
	usage
fi

work=$top/build/check-install-tree
dest=$work/dest
log=$work/step.log
group=encdcheck
prefix=/usr/local
mk() {
	make -C "$top" --no-print-directory KVER="$kver" "$@"
}

n=0 passed=0 failed=0
step() {
	local name=$1 fn=$2
	n=$((n + 1))
	if "$fn" >"$log" 2>&1; then
		echo "ok $n $name"
		passed=$((passed + 1))
	else
		sed 's/^/# /' "$log"
		echo "not ok $n $name"
		failed=$((failed + 1))
	fi
}

# Every file and symlink under DESTDIR, as installed paths.
listing() {
	(cd "$dest" && find . -mindepth 1 ! -type d -printf '/%P\n') | LC_ALL=C sort
}

expected() {
	local f
	for f in "$top"/lib/include/enc/*.h; do
		echo "$prefix/include/enc/${f##*/}"
	done
	echo "$prefix/include/linux/encd.h"
	echo "$prefix/include/linux/encd_netlink.h"
	for f in "$top"/Documentation/man/man3/*.3; do
		echo "$prefix/share/man/man3/${f##*/}"
	done
	for f in libenc libenc-json; do
		echo "$prefix/lib/$f.so.1"
		echo "$prefix/lib/$f.so"
		echo "$prefix/lib/$f.a"
		echo "$prefix/lib/pkgconfig/$f.pc"
	done
	echo "$prefix/sbin/encctl"
	echo "$prefix/share/man/man8/encctl.8"
	echo "$prefix/share/bash-completion/completions/encctl"
	echo "/etc/udev/rules.d/60-encd.rules"
	echo "/etc/udev/rules.d/61-encd-neuron.rules"
	echo "/etc/systemd/system/encd-topo-sync.service"
	echo "/etc/modprobe.d/encd.conf"
	echo "/lib/modules/$kver/updates/encd.ko"
	# Someone else's, from before the install.
	echo "$prefix/share/man/man3/other.3"
}

step_install() {
	local f
	mk install DESTDIR="$dest" ENCD_GROUP=$group || return 1
	if ! diff -u <(expected | LC_ALL=C sort) <(listing); then
		echo "(- expected but not installed, + installed but not expected)"
		return 1
	fi
	for f in libenc libenc-json; do
		[ "$(readlink "$dest$prefix/lib/$f.so")" = "$f.so.1" ] ||
			{ echo "$f.so does not point at $f.so.1"; return 1; }
	done
	grep -q "GROUP=\"$group\", MODE=\"0660\"" "$dest/etc/udev/rules.d/60-encd.rules" ||
		{ echo "the udev rule does not give /dev/encd to $group, mode 0660"; return 1; }
}

# link NAME SRC MODULE: links SRC into NAME with pkg-config's flags for MODULE.
link() {
	local flags
	flags=$(PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_PATH=$dest$prefix/lib/pkgconfig \
		pkg-config --cflags --libs "$3") || return 1
	echo "pkg-config --cflags --libs $3: $flags"
	# shellcheck disable=SC2086 # the flags are words
	cc -Wall -Werror -o "$work/$1" "$2" $flags
}

step_link() {
	link world "$top/tools/pkg/install-test-world.c" libenc || return 1
	link sign "$top/tools/pkg/install-test-sign.c" libenc-json || return 1
	readelf -d "$work/world" | grep NEEDED
	if readelf -d "$work/world" | grep -q 'NEEDED.*json'; then
		echo "linked with libenc alone, it needs json"
		return 1
	fi
	readelf -d "$work/sign" | grep -q 'NEEDED.*\[libenc-json\.so\.1\]' ||
		{ echo "linked with libenc-json, it does not need libenc-json.so.1"; return 1; }
}

step_modprobe_conf() {
	local conf=$dest/etc/modprobe.d/encd.conf p count=0
	for p in $(modinfo -p "$dest/lib/modules/$kver/updates/encd.ko" | cut -d: -f1); do
		count=$((count + 1))
		grep -q "^#options encd $p=" "$conf" || { echo "encd.conf has no line for $p"; return 1; }
	done
	[ "$count" -gt 0 ] || { echo "modinfo lists no parameters"; return 1; }
	echo "encd.conf: all $count parameters"
	! grep -n '^[[:space:]]*options' "$conf" || { echo "encd.conf sets the above"; return 1; }
	grep -q '^#options encd allow_insecure_worlds=N$' "$conf" ||
		{ echo "encd.conf does not show allow_insecure_worlds off"; return 1; }
}

step_uninstall() {
	local left err
	mk uninstall DESTDIR="$dest" || return 1
	left=$(cd "$dest" && find . -mindepth 1 -printf '/%P\n' | LC_ALL=C sort)
	if [ "$left" != "$(printf '%s\n' /usr /usr/local /usr/local/share /usr/local/share/man \
		/usr/local/share/man/man3 /usr/local/share/man/man3/other.3)" ]; then
		echo "left in DESTDIR, where only other.3 and its parents should be:"
		echo "$left"
		return 1
	fi
	if err=$(mk uninstall DESTDIR="$dest" 2>&1); then
		echo "a second uninstall succeeded"
		return 1
	fi
	echo "$err"
	grep -q 'nothing was installed' <<<"$err"
}

step_bad_group() {
	local err
	if err=$(mk install-system DESTDIR="$work/bad" ENCD_GROUP='Neuron Users' 2>&1); then
		echo "ENCD_GROUP='Neuron Users' was taken"
		return 1
	fi
	echo "$err"
	grep -q "is not a group name" <<<"$err" && [ ! -e "$work/bad" ]
}

step_dkms_tree() {
	local tree=$top/build/dkms/encd-$version f o rc=0
	mk dkms-source >/dev/null || return 1
	diff -r "$top/kmod" "$tree/kmod" || rc=1
	diff -r "$top/uapi" "$tree/uapi" || rc=1
	cmp "$top/Kbuild" "$tree/Kbuild" || rc=1
	grep -qx "PACKAGE_VERSION=\"$version\"" "$tree/dkms.conf" ||
		{ echo "dkms.conf does not give version $version"; rc=1; }
	for f in "$top"/kmod/*.c; do
		o=$(basename "$f" .c).o
		grep -Eq "(^|[[:space:]=])$o([[:space:]\\\\]|$)" "$top/kmod/Kbuild" ||
			{ echo "kmod/Kbuild builds no $o"; rc=1; }
	done
	return "$rc"
}

rm -rf "$work"
mkdir -p "$dest$prefix/share/man/man3"
echo '.TH OTHER 3' >"$dest$prefix/share/man/man3/other.3"

step make_install_puts_exactly_the_expected_files step_install
step programs_link_through_the_installed_pc_files step_link
step modprobe_d_sample_names_every_parameter_and_sets_none step_modprobe_conf
step make_uninstall_leaves_nothing_behind step_uninstall
step install_refuses_a_bad_group_name step_bad_group
step dkms_tree_is_kmod_as_it_is step_dkms_tree

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
