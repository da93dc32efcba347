# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the tests that run one host per QEMU VM (multihost-bootstrap.sh,
# slurm-cluster.sh): VMs on a virtual network that stays on this host's
# loopback, 10.77.0.0/24, VM i at 10.77.0.<i+1>. Two VMs are joined point to
# point (QEMU socket listen/connect on 127.0.0.1). More share a multicast
# group whose socket QEMU binds to the loopback interface
# (mcast=230.0.0.1:PORT,localaddr=127.0.0.1: IP_MULTICAST_IF and the
# membership on 127.0.0.1, so frames are looped back on lo and never sent on
# another interface; lo needs no MULTICAST flag for that).
#
# vmnet_kver: the newest installed Debian 6.1 kernel, the default.
# vmnet_lock: takes the machine's VM lock (tools/vm/run.sh) for all the VMs.
# vmnet_start I VMS PORT KVER SCRIPT OUT MEM: boots VM I of VMS in the
# background, running SCRIPT there (its console in OUT.log, its run in OUT/),
# and appends its pid to the array vmnet_pids.
# vmnet_wait OUT: waits for every VM; vmnet_failed counts those that failed,
# and the capture ends (vmnet_capture_end).
#
# vmnet_capture_start OUT PORT / vmnet_capture_end OUT: the proof that the
# network stays here: tcpdump on the default route's interface, when it is
# installed and this runs as root; vmnet_capture_end prints how many frames
# of the VMs' network it saw there (empty: no capture) in vmnet_leaked.

vmnet_pids=()
vmnet_capture=''
vmnet_leaked=''
vmnet_failed=0

vmnet_kver()
{
	ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' |
		grep -v -e cloud -e rt | sort -V | tail -n 1
}

vmnet_lock()
{
	exec 7>"${ENCD_VM_LOCK:-/var/lock/encd-vm.lock}"
	flock 7
	export ENCD_VM_LOCK_HELD=1
}

vmnet_start()
{
	local i=$1 vms=$2 port=$3 kver=$4 script=$5 out=$6 mem=$7 mac sock

	mac=52:54:00:77:00:$(printf %02x $((i + 1)))
	if [ "$vms" -eq 2 ]; then
		[ "$i" -eq 0 ] && sock="listen=127.0.0.1:$port" || sock="connect=127.0.0.1:$port"
	else
		sock="mcast=230.0.0.1:$port,localaddr=127.0.0.1"
	fi
	chmod +x "$script"
	"$(dirname "${BASH_SOURCE[0]}")/run.sh" --kernel "/boot/vmlinuz-$kver" \
		--modules-dir "/lib/modules/$kver" --out "$out" --timeout 1800 --mem "$mem" --quiet \
		--qemu -nic --qemu "socket,$sock,model=virtio-net-pci,mac=$mac" \
		-- "$script" > "$out.log" 2>&1 &
	vmnet_pids+=($!)
	# Each run writes the shared initramfs first; let one finish it.
	sleep 3
}

vmnet_capture_start()
{
	local out=$1 port=$2 dev

	dev=$(ip route show default 2>/dev/null | sed -n 's/.* dev \([^ ]*\).*/\1/p' | head -n 1)
	vmnet_dev=$dev
	if [ -n "$dev" ] && [ "$(id -u)" = 0 ] && command -v tcpdump >/dev/null; then
		tcpdump -i "$dev" -n -p -w "$out/leak.pcap" \
			"udp port $port or dst host 230.0.0.1 or net 10.77.0.0/24" \
			2>"$out/tcpdump.log" &
		vmnet_capture=$!
		sleep 1
	fi
}

vmnet_capture_end()
{
	local out=$1

	[ -n "$vmnet_capture" ] || return 0
	sleep 1
	kill -INT "$vmnet_capture" 2>/dev/null || true
	wait "$vmnet_capture" || true
	vmnet_leaked=$(tcpdump -n -r "$out/leak.pcap" 2>/dev/null | wc -l)
	echo "# $vmnet_dev: $vmnet_leaked frames of the VMs' network (tcpdump)"
}

vmnet_wait()
{
	local pid

	vmnet_failed=0
	for pid in "${vmnet_pids[@]}"; do
		wait "$pid" || vmnet_failed=$((vmnet_failed + 1))
	done
	vmnet_capture_end "$1"
}
