#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds the test VM's initramfs: busybox-static, tools/vm/init as /init, the
# modprobe shim, and the kernel modules the VM needs before it can mount the
# host's root over virtio-9p (from --modules-dir; none for a kernel that has
# them built in).
#
#   initramfs.sh [--modules-dir /lib/modules/KVER] --out FILE.cpio
#
# The archive is rebuilt only when one of its inputs changed: a hash of them
# is kept next to it.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
busybox=/bin/busybox
# virtio_net is for VMs given a virtual network (run.sh --qemu -nic ...).
wanted="virtio_pci 9pnet_virtio 9p virtio_net"

moddir='' out=''
while [ $# -gt 0 ]; do
	case $1 in
	--modules-dir) moddir=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "usage: $0 [--modules-dir DIR] --out FILE" >&2; exit 2 ;;
	esac
done
[ -n "$out" ] || { echo "initramfs: --out is required" >&2; exit 2; }
[ -x "$busybox" ] || { echo "initramfs: $busybox missing: run 'make deps'" >&2; exit 1; }

# Module files in load order, dependencies first, resolved from modules.dep.
# A module that the kernel has built in is simply not needed.
declare -A seen
order=()
add_module() {
	local name=$1 line path dep
	line=$(grep -E "(^|/)${name}\.ko(\.xz)?:" "$moddir/modules.dep" || true)
	if [ -z "$line" ]; then
		grep -qE "(^|/)${name}\.ko$" "$moddir/modules.builtin" && return 0
		echo "initramfs: module $name is neither in $moddir/modules.dep nor built in" >&2
		exit 1
	fi
	path=${line%%:*}
	[ -z "${seen[$path]:-}" ] || return 0
	seen[$path]=1
	for dep in ${line#*:}; do
		dep=$(basename "$dep")
		add_module "${dep%%.ko*}"
	done
	order+=("$path")
}
if [ -n "$moddir" ]; then
	for m in $wanted; do
		add_module "$m"
	done
fi

inputs=("$0" "$here/init" "$here/modprobe" "$busybox")
for m in "${order[@]}"; do
	inputs+=("$moddir/$m")
done
hash=$( (printf '%s\n' "${inputs[@]}"; cat "${inputs[@]}") | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$out.hash" 2>/dev/null)" = "$hash" ]; then
	exit 0
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage" "${tmp:-}"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,host,hostro,lib/modules}
cp "$busybox" "$stage/bin/busybox"
cp "$here/init" "$stage/init"
cp "$here/modprobe" "$stage/sbin/modprobe"
chmod 755 "$stage/init" "$stage/sbin/modprobe"
# busybox insmod cannot read compressed modules, so unpack them here.
for m in "${order[@]}"; do
	base=$(basename "$m")
	case $m in
	*.xz) xz -dc "$moddir/$m" >"$stage/lib/modules/${base%.xz}" ;;
	*) cp "$moddir/$m" "$stage/lib/modules/$base" ;;
	esac
	echo "${base%.xz}" >>"$stage/lib/modules/order"
done
touch "$stage/lib/modules/order"

# Runs in parallel (two lanes, two VMs) may build it at once: each renames
# a whole archive into place.
mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.XXXXXX")
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$tmp"
chmod 644 "$tmp"
mv "$tmp" "$out"
echo "$hash" >"$out.hash"
echo "initramfs: built $out (${#order[@]} modules)" >&2
