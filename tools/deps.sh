#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs what building encd and running its tests needs on Debian 12.
# Every lane runs this first, so it must cost nothing when all is present:
# it asks dpkg, and only touches apt (update + install) for what is missing.
set -eu

packages=(
	# compilers and kbuild for the module, against both Debian kernels
	gcc libc6-dev make pkg-config kmod
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	# libenc and encctl
	libmnl-dev libjson-c-dev
	# the debug kernel (and the selftest harness headers) come from here
	linux-source-6.1 xz-utils bc bison flex libelf-dev libssl-dev
	# the test VM: QEMU, a busybox initramfs, loopback/veth set-up inside
	qemu-system-x86 busybox-static cpio iproute2 util-linux coreutils
	# selftests in Python, and the netlink spec check (PyYAML)
	python3 python3-yaml
	# the netlink code generator and the YNL CLI (6.12's tools/net/ynl),
	# which validate the spec against the kernel's schema
	linux-source-6.12 python3-jsonschema
	# the real job launchers the launcher tests run in the VM: torchrun,
	# Open MPI's mpirun, and a Slurm cluster of VMs (munge authenticates it)
	python3-torch openmpi-bin slurmctld slurmd slurm-client munge
	# make deb (debhelper, dh-dkms, lintian) and the install test, which
	# builds the module with DKMS inside the VM and applies the udev rule
	debhelper dh-dkms dkms dpkg-dev fakeroot lintian udev adduser passwd
)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || { echo "deps: need root to install: ${missing[*]}" >&2; exit 1; }
	echo "deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The selftest harness and the debug kernel need the source tree unpacked,
# the netlink generator and its test YNL from 6.12 (once per machine, in a
# cache outside the checkout).
"$(dirname "$0")/kernel-source.sh" 6.1 >/dev/null
"$(dirname "$0")/kernel-source.sh" 6.12 >/dev/null
