#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The install test: encd's Debian packages, installed and used in a VM.
#
#   install-test.sh [--kver KVER]
#
# On the host it builds the packages (`make deb`) and boots KVER (default:
# the newest Debian 6.1 kernel) with tools/vm/run.sh. In the VM, over the
# host's read-only root, it mounts an overlay whose changes go to a tmpfs,
# chroots into it and, using only what the packages installed:
#
#   1. dpkg -i installs encd-dkms, libenc1, libenc-dev, libenc-json1,
#      libenc-json-dev and encctl; encd-dkms has DKMS build encd.ko against
#      the running kernel's headers
#   2. modprobe encd loads that DKMS-built module
#   3. udev (systemd-udevd, started for the test) gives /dev/encd to the
#      encd group with mode 0660: a user outside the group cannot open it
#   4. the modprobe.d sample names every parameter modinfo lists, and sets
#      none of them as shipped
#   5. a program compiled with `pkg-config --cflags --libs libenc` forms a
#      4-rank world, 4 processes run by a user in the encd group
#   6. /usr/sbin/encctl status, run by that user, shows that world; then
#      the ranks let go of it and exit cleanly
#   7. a program compiled with `pkg-config --cflags --libs libenc-json`
#      reads selftests/programs/mixed.json and has the kernel sign it: the
#      same global signature as /usr/sbin/encctl program sign's and as
#      selftests/programs/sign.py's (computed on the host); the rank
#      program needs libenc.so.1 and not json-c, this one libenc-json.so.1,
#      each from its package
#   8. modprobe -r, then dpkg --purge (whose prerm has DKMS remove the
#      module) leave nothing behind: the overlay's changes are compared with
#      what they were before the install
#
# It prints KTAP and ends with "N passed, N failed". The Debian lanes run it
# (tools/vm/check.sh --install); `make check-install [KVER=6.12]` runs it alone.
set -u
# shellcheck disable=SC2317 # the steps are called through step()
# Braces: bash reads the whole script before running it, so an edit to this
# file while it runs cannot derail it.
{

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
packages=(encd-dkms libenc1 libenc-dev libenc-json1 libenc-json-dev encctl)
# What the VM copies into the overlay: the packages, the rank program, the
# JSON program reader and the program it reads, with its signature.
world_src=install-test-world.c
sign_src=install-test-sign.c

# ---- on the host -------------------------------------------------------

host() {
	local kver=$1 out summary
	if [ -z "$kver" ]; then
		kver=$(printf '%s\n' /usr/src/linux-headers-6.1.*-amd64 |
			sed 's|.*/linux-headers-||' | grep -v -e cloud -e rt | sort -V | tail -n 1)
	fi
	[ -r "/boot/vmlinuz-$kver" ] || { echo "install-test: no /boot/vmlinuz-$kver" >&2; return 1; }
	out=$top/build/$kver/install-test
	rm -rf "$out"
	mkdir -p "$out/debs"

	# Under the lock that make deb takes, so that another lane's build
	# cannot swap the packages while they are copied.
	if ! make -C "$top" --no-print-directory deb >"$out/deb.log" 2>&1; then
		cat "$out/deb.log"
		echo "not ok 1 install_test # make deb failed"
		echo "0 passed, 1 failed"
		return 1
	fi
	(
		flock 9
		for p in "${packages[@]}"; do
			cp "$top/build/deb/${p}"_*.deb "$out/debs/" || exit 1
		done
	) 9>"$top/build/deb/.lock" || { echo "install-test: a package is missing" >&2; return 1; }
	grep -v '^deb: built' "$out/deb.log"
	echo "# packages: $(cd "$out/debs" && echo *.deb)"
	# The global signature of mixed.json for global device 2, by the
	# selftests' own reading of libnrt's signature, independent of libenc.
	cp "$top/selftests/programs/mixed.json" "$out/"
	python3 "$top/selftests/programs/sign.py" "$out/mixed.json" --g-device-id 2 |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["global"])' \
		>"$out/mixed.sig" || { echo "install-test: sign.py failed" >&2; return 1; }

	"$top/tools/vm/run.sh" --kernel "/boot/vmlinuz-$kver" --modules-dir "/lib/modules/$kver" \
		--out "$out/vm" --timeout 2400 --quiet -- bash "$here/install-test.sh" --guest "$out"
	cat "$out/vm/output.log"
	summary=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$out/vm/output.log" | tail -n 1)
	if [ -z "$summary" ] || ! grep -q '^finished=1' "$out/vm/result"; then
		echo "not ok 1 install_test # the VM did not finish: $out/vm/console.log"
		echo "0 passed, 1 failed"
		return 1
	fi
	case $summary in *" 0 failed"*) return 0 ;; esac
	return 1
}

# ---- in the VM, as root, in a chroot of the host's root ----------------

guest() {
	local out=$1 ov=/run/encd-install r rc
	ov=/run/encd-install
	r=$ov/root
	mkdir -p $ov
	mount -t tmpfs -o mode=0755 tmpfs $ov || return 1
	mkdir -p $ov/upper $ov/work $r
	# The host's root, read-only over 9p, as the lower layer: everything
	# the packages write goes to the tmpfs.
	if ! mount -t overlay overlay -o lowerdir=/,upperdir=$ov/upper,workdir=$ov/work "$r"; then
		echo "Bail out! cannot mount an overlay over the VM's root"
		return 1
	fi
	mount -t proc proc "$r/proc"
	mount -t sysfs sysfs "$r/sys"
	mount --rbind /dev "$r/dev"
	mount -t tmpfs tmpfs "$r/tmp"
	mount -t tmpfs tmpfs "$r/run"
	# What the test compares: the overlay's changes, and the root under them.
	mkdir -p "$r/run/encd-test/upper" "$r/run/encd-test/lower" "$r/tmp/encd-install-test"
	mount -o bind,ro $ov/upper "$r/run/encd-test/upper"
	mount -o bind,ro / "$r/run/encd-test/lower"
	cp "$out"/debs/*.deb "$out/mixed.json" "$out/mixed.sig" "$here/$world_src" \
		"$here/$sign_src" "$here/install-test.sh" "$r/tmp/encd-install-test/"

	chroot "$r" /bin/bash /tmp/encd-install-test/install-test.sh --installed \
		/tmp/encd-install-test
	rc=$?
	umount -R "$r" 2>/dev/null || umount -R -l "$r"
	umount $ov
	return "$rc"
}

# ---- in the overlay ----------------------------------------------------

n=0 passed=0 failed=0
log=/tmp/step.log

# Runs one step (a function) as test case NAME: its output is shown when it
# fails.
step() {
	local name=$1 fn=$2 start=$SECONDS rc
	"$fn" >$log 2>&1
	rc=$?
	n=$((n + 1))
	if [ $rc = 0 ]; then
		echo "ok $n $name"
		passed=$((passed + 1))
	else
		sed 's/^/# /' "$log"
		echo "not ok $n $name"
		failed=$((failed + 1))
	fi
	echo "# $name: $((SECONDS - start))s"
}

# Runs "$@" as USER with the groups the group database gives USER.
as() {
	local user=$1
	shift
	setpriv --reuid="$user" --regid="$user" --init-groups -- "$@"
}

# The overlay's changes: one "TYPE PATH" line per entry of the upper layer
# (a deleted host file shows as a whiteout, type c).
changes() {
	(cd /run/encd-test/upper && find . -mindepth 1 -printf '%y /%P\n') | LC_ALL=C sort
}

# New files that are not the packages': logs, and the key DKMS makes on a
# machine's first module build to sign every module it builds from then on.
leftover_ok() {
	case $1 in
	/var/log/* | /var/lib/dkms/mok.key | /var/lib/dkms/mok.pub) return 0 ;;
	esac
	return 1
}

step_install() {
	local start=$SECONDS p kcflags=-g0
	# Kbuild takes KCFLAGS from the environment, which dpkg and DKMS pass
	# on: without debug information gcc under TCG builds encd.ko in some
	# three quarters of the time, and nothing here reads it. Unless the
	# headers ship vmlinux (Debian's 6.12 does): then kbuild makes the
	# module's BTF from its DWARF, and pahole fails on a module without.
	[ ! -e "/lib/modules/$kver/build/vmlinux" ] || kcflags=''
	# Each line with the seconds since dpkg started: the DKMS build's
	# share is the lane's longest wait.
	KCFLAGS=$kcflags timeout 1500 dpkg -i "${debs[@]}" 2>&1 | while IFS= read -r line; do
		printf '[%3ds] %s\n' $((SECONDS - start)) "$line"
	done
	if [ "${PIPESTATUS[0]}" != 0 ]; then
		# DKMS names its log; what failed is at its end.
		for p in /var/lib/dkms/encd/*/build/make.log; do
			[ -e "$p" ] && echo "$p, its end:" && tail -n 20 "$p"
		done
		return 1
	fi
	for p in "${packages[@]}"; do
		[ "$(dpkg-query -W -f '${db:Status-Status}' "$p")" = installed ] ||
			{ echo "$p is not installed"; return 1; }
	done
	dkms status -m encd -k "$kver" | grep -q ": installed" ||
		{ echo "dkms has not installed encd for $kver:"; dkms status; return 1; }
}

step_modprobe() {
	local path
	modprobe encd || return 1
	path=$(modinfo -n encd) || return 1
	echo "modinfo -n encd: $path"
	case $path in
	/lib/modules/$(uname -r)/updates/dkms/encd.ko*) ;;
	*) echo "modprobe found encd at $path, not where DKMS installs it"; return 1 ;;
	esac
	[ "$(cat /sys/module/encd/srcversion)" = "$(modinfo -F srcversion encd)" ] ||
		{ echo "the loaded encd is not $path"; return 1; }
}

step_udev() {
	local mode
	udevadm settle --timeout=60
	mode=$(stat -c '%U:%G %a' /dev/encd) || return 1
	echo "/dev/encd: $mode"
	[ "$mode" = "root:encd 660" ] || { echo "expected root:encd 660"; return 1; }
	if as encdother sh -c ': <>/dev/encd'; then
		echo "encdother, outside the encd group, could open /dev/encd"
		return 1
	fi
}

step_modprobe_conf() {
	local conf=/etc/modprobe.d/encd.conf p n=0 set
	for p in $(modinfo -p encd | cut -d: -f1); do
		n=$((n + 1))
		grep -q "^#options encd $p=" "$conf" || { echo "$conf has no line for $p"; return 1; }
	done
	[ "$n" -gt 0 ] || { echo "modinfo -p encd lists no parameters"; return 1; }
	echo "$conf: all $n parameters"
	set=$(modprobe -c | grep '^options encd ')
	[ -z "$set" ] || { echo "as shipped, $conf sets: $set"; return 1; }
}

step_world() {
	local i cflags
	cflags=$(pkg-config --cflags --libs libenc) || return 1
	echo "pkg-config --cflags --libs libenc: $cflags"
	# shellcheck disable=SC2086 # the flags are words
	cc -Wall -Werror -o /tmp/world "$dir/$world_src" $cflags || return 1
	mkfifo /tmp/hold
	for i in 0 1 2 3; do
		as encdtest /tmp/world "$i" 4 "$port" </tmp/hold >"/tmp/rank$i.log" 2>&1 &
		ranks+=($!)
	done
	# Opening the pipe lets the ranks start; closing it, later, stops them.
	exec 3>/tmp/hold
	for _ in $(seq 240); do
		[ "$(cat /tmp/rank?.log | grep -c 'formed$')" = 4 ] && break
		for i in "${ranks[@]}"; do
			kill -0 "$i" 2>/dev/null || break 2
		done
		sleep 0.5
	done
	cat /tmp/rank?.log
	[ "$(cat /tmp/rank?.log | grep -c 'formed$')" = 4 ]
}

# Then the ranks, their standard input closed, let go of their comms.
step_status() {
	local rc=0 pid
	as encdtest /usr/sbin/encctl status || rc=1
	as encdtest /usr/sbin/encctl -j status >/tmp/status.json || rc=1
	python3 - /tmp/status.json <<'EOF' || rc=1
import json, sys
comms = json.load(open(sys.argv[1]))["comms"]
got = sorted((c["g_device_id"], c["g_device_cnt"], c["state"]) for c in comms)
want = [(i, 4, "bootstrapped") for i in range(4)]
if got != want:
	sys.exit("encctl status shows %s, not ranks 0-3 of one formed world of 4" % got)
EOF
	exec 3>&-
	for pid in "${ranks[@]}"; do
		wait "$pid" || { echo "a rank exited with status $?"; rc=1; }
	done
	cat /tmp/rank?.log 2>/dev/null | grep -v 'formed$'
	return "$rc"
}

# Which package's file the dynamic linker picks for LIB in PROGRAM.
lib_owner() {
	local path
	path=$(ldd "$1" | sed -n "s|^[[:space:]]*$2 => \([^ ]*\) .*|\1|p")
	[ -n "$path" ] || { echo "$1 does not load $2"; return 1; }
	dpkg -S "$(realpath "$path")" | sed -n '1s/:.*//p'
}

step_json() {
	local flags want got enc owner rc=0
	flags=$(pkg-config --cflags --libs libenc-json) || return 1
	echo "pkg-config --cflags --libs libenc-json: $flags"
	# shellcheck disable=SC2086 # the flags are words
	cc -Wall -Werror -o /tmp/sign "$dir/$sign_src" $flags || return 1
	want=$(cat "$dir/mixed.sig")
	got=$(as encdtest /tmp/sign "$dir/mixed.json" 8 2 8) || return 1
	enc=$(as encdtest /usr/sbin/encctl -j program sign "$dir/mixed.json" --vnc 9 \
		--g-device-id 2 --world-size 8 |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["global"])') || return 1
	echo "mixed.json, global device 2: sign.py $want, install-test-sign $got, encctl $enc"
	if [ "$got" != "$want" ] || [ "$enc" != "$want" ]; then
		echo "the signatures differ"
		rc=1
	fi

	owner=$(lib_owner /tmp/world libenc.so.1) || return 1
	[ "$owner" = libenc1 ] || { echo "the rank program's libenc.so.1 is $owner's"; rc=1; }
	if readelf -d /tmp/world | grep -q 'NEEDED.*json'; then
		echo "the rank program, linked with libenc alone, needs json:"
		readelf -d /tmp/world | grep NEEDED
		rc=1
	fi
	owner=$(lib_owner /tmp/sign libenc-json.so.1) || return 1
	[ "$owner" = libenc-json1 ] || { echo "install-test-sign's libenc-json.so.1 is $owner's"; rc=1; }
	owner=$(lib_owner /tmp/sign libenc.so.1) || return 1
	[ "$owner" = libenc1 ] || { echo "install-test-sign's libenc.so.1 is $owner's"; rc=1; }
	return "$rc"
}

step_purge() {
	local rc=0 kind p what
	[ ! -d /sys/module/encd ] || modprobe -r encd || { echo "modprobe -r encd failed"; rc=1; }
	dpkg --purge "${packages[@]}" || rc=1
	[ -z "$(dkms status -m encd)" ] || { echo "dkms still has:"; dkms status -m encd; rc=1; }
	changes >/tmp/after
	: >/tmp/kept
	while read -r kind p; do
		if [ "$kind" = c ]; then
			what="removed from the host's root"
		elif [ -e "/run/encd-test/lower$p" ] || [ -L "/run/encd-test/lower$p" ]; then
			# The host has it: changed, not left behind.
			continue
		elif leftover_ok "$p"; then
			echo "$kind $p" >>/tmp/kept
			continue
		else
			what="left behind"
		fi
		echo "$what: $p"
		rc=1
	done < <(LC_ALL=C comm -13 /tmp/before /tmp/after)
	while read -r kind p; do
		[ -e "$p" ] || [ -L "$p" ] || { echo "gone since before the install: $p"; rc=1; }
	done < <(LC_ALL=C comm -23 /tmp/before /tmp/after)
	return "$rc"
}

installed() {
	local start=$SECONDS
	dir=$1
	debs=()
	for p in "${packages[@]}"; do
		debs+=("$dir/${p}"_*.deb)
	done
	ranks=()
	port=29650
	kver=$(uname -r)

	export DEBIAN_FRONTEND=noninteractive
	echo "TAP version 13"
	echo "1..8"
	echo "# $(uname -r), packages: ${debs[*]##*/}"
	# A user in the device's group (added once the package made the
	# group), and one outside it.
	useradd --system --no-create-home --shell /usr/sbin/nologin encdtest &&
		useradd --system --no-create-home --shell /usr/sbin/nologin encdother ||
		echo "Bail out! cannot add the test users"
	# This VM stands for a host with only the kernel it runs: DKMS's
	# postinst would also build for the newest kernel installed, which
	# the other lane's VM runs and proves.
	for c in /boot/config-*; do
		[ "$c" = "/boot/config-$kver" ] || rm -f "$c"
	done
	# What man-db keeps when man-db/auto-update is false: its index is
	# not under test, and each dpkg run would rebuild it over 9p.
	rm -f /var/lib/man-db/auto-update
	changes >/tmp/before

	step packages_install_and_dkms_builds_encd step_install
	grep -E '(Building|Done|Setting up|Processing)' $log | sed 's/^/# /'
	usermod -a -G encd encdtest >$log 2>&1 || sed 's/^/# /' $log
	# udev, as a booted system runs it, for /dev/encd's group and mode.
	/lib/systemd/systemd-udevd --daemon >$log 2>&1 || sed 's/^/# /' $log

	step modprobe_loads_the_dkms_built_module step_modprobe
	step dev_encd_is_group_encd_mode_0660 step_udev
	step modprobe_d_sample_names_every_parameter step_modprobe_conf
	step pkg_config_program_forms_a_4_rank_world_as_a_group_member step_world
	step encctl_status_shows_the_world_to_a_group_member_then_ranks_let_go step_status
	step pkg_config_json_program_signs_as_encctl_and_sign_py step_json

	udevadm control --exit >/dev/null 2>&1
	step purge_and_dkms_remove_leave_nothing_behind step_purge
	sed 's/^/# new, not the packages'"'"': /' /tmp/kept
	echo "# install test: $((SECONDS - start))s in the VM"
	echo "$passed passed, $failed failed"
	[ $failed = 0 ]
}

case ${1:-} in
--guest) guest "$2"; exit ;;
--installed) installed "$2"; exit ;;
--kver) host "$2"; exit ;;
'') host ''; exit ;;
*) sed -n '/^#   install-test.sh/s/^# \{0,3\}//p' "$0" >&2; exit 2 ;;
esac
}
