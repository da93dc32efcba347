#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One world across several QEMU VMs: each VM loads encd, joins a QEMU virtual
# network (10.77.0.0/24, the VM's own address 10.77.0.<i+1>) and starts its
# share of the ranks with `encctl world launch --ranks`; the root is rank 0 on
# the first VM. Every rank forms the world, runs a group and a local barrier
# and tears down; the script prints one KTAP result and exits 0 when every
# rank on every VM succeeded and each VM unloaded encd cleanly.
#
#   multihost-bootstrap.sh [--kver KVER] [--vms N] [--ranks-per-vm R]
#                          [--mem MB] [--bench]
#
# The virtual network stays on this host's loopback (tools/vm/vmnet.sh).
# Checked on a 4-VM world of 1,024 ranks: tcpdump on the default route's
# interface saw no frame of it. When tcpdump is installed and this runs as
# root, every run checks it again and fails if a frame of the VMs' network
# shows up there.
#
# The VMs run side by side, holding the machine's VM lock together
# (tools/vm/run.sh). --mem sizes each VM (MiB; 256 ranks need about 1 GiB).
#
# --bench (make bench-bootstrap) also prints figures: the VMs other than the
# root's start their ranks first and tell the root VM once every rank made
# its global comm; then the root VM starts its own. Formation is measured on
# the root VM's clock (the kernel's phase timestamps): its first rank's
# rendezvous start to its last rank's end of the world's last phase. Bytes
# each VM (one host agent) sent are the kernel's count, read while the world
# is held (encctl -j comm show: host_tx_bytes); the root's share on its own
# port, the control links it serves, from its TCP sockets (ss -ti:
# bytes_sent - bytes_retrans).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/vm/vmnet.sh
. "$top/tools/vm/vmnet.sh"
kver='' vms=2 per=4 mem=1024 bench=''
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--vms) vms=$2; shift 2 ;;
	--ranks-per-vm) per=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--bench) bench=1; shift ;;
	*) sed -n '/^#   multihost/,/^#$/p' "$0" >&2; exit 2 ;;
	esac
done
[ -n "$kver" ] || kver=$(vmnet_kver)
ko=$top/build/$kver/kmod/encd.ko
encctl=$top/build/tools/encctl
[ -r "$ko" ] && [ -x "$encctl" ] || { echo "build first: make KVER=$kver" >&2; exit 1; }

out=$top/build/$kver/multihost-$vms${bench:+-bench}
rm -rf "$out"
mkdir -p "$out"
n=$((vms * per))
port=$((20000 + $$ % 20000))
root_port=29600
# A root off loopback needs a world secret, the same on every VM.
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$out/secret"

exec 7>"${ENCD_VM_LOCK:-/var/lock/encd-vm.lock}"
flock 7
export ENCD_VM_LOCK_HELD=1

vmnet_lock
vmnet_capture_start "$out" "$port"

if [ -n "$bench" ]; then
	hold=$((10 + n / 64))
	tmo=900000
else
	# Every rank leaves as soon as its barrier ends: the others still in
	# it must finish it (Documentation/bootstrap.rst: departures).
	hold=0
	tmo=120000
fi

echo "TAP version 13"
echo "1..1"
for i in $(seq 0 $((vms - 1))); do
	{
		echo '#!/bin/bash'
		echo "ip link set eth0 up && ip addr add 10.77.0.$((i + 1))/24 dev eth0 || exit 1"
		echo "insmod $ko num_vcores=$per || exit 1"
		if [ -n "$bench" ] && [ "$i" -eq 0 ]; then
			# The others say they are ready on a port of their own.
			echo "python3 -c 'import socket; s = socket.create_server((\"10.77.0.1\", $((root_port - 1)))); s.settimeout(900); [s.accept() for _ in range($((vms - 1)))]'"
		fi
		echo "$encctl -j world launch -n $n --ranks $((i * per)):$per --vnc-base 0 \\"
		echo "	--root 10.77.0.1:$root_port --secret-file $out/secret \\"
		echo "	--barrier --timeout-ms $tmo --hold $hold >/tmp/ranks 2>&1 &"
		echo 'launch=$!'
		if [ -n "$bench" ]; then
			if [ "$i" -ne 0 ]; then
				echo "until [ \"\$($encctl -j comm show | grep -o '\"serial\"' | wc -l)\" -ge $per ]; do sleep 0.5; done"
				echo "until python3 -c 'import socket; socket.create_connection((\"10.77.0.1\", $((root_port - 1))), 1)' 2>/dev/null; do sleep 0.5; done"
			fi
			echo "until [ \"\$(grep -c '^{' /tmp/ranks)\" -ge $per ] || ! kill -0 \$launch 2>/dev/null; do sleep 0.2; done"
			echo "ss -tinH | tr -s ' \\t' ' ' | paste -d ' ' - - | sed 's/^/bench-ss: /'"
			echo "echo \"bench-comm: \$($encctl -j comm show)\""
		fi
		echo 'wait $launch'
		echo 'rc=$?'
		echo 'cat /tmp/ranks'
		echo 'rmmod encd || rc=1'
		echo 'exit $rc'
	} > "$out/vm$i.sh"
	vmnet_start "$i" "$vms" "$port" "$kver" "$out/vm$i.sh" "$out/vm$i" "$mem"
done

vmnet_wait "$out"
failed=$vmnet_failed
leaked=$vmnet_leaked
ok=$(cat "$out"/vm*/output.log 2>/dev/null | grep '^{' | grep -c '"ok":true' || true)
for i in $(seq 0 $((vms - 1))); do
	grep -h '"error":"' "$out/vm$i/output.log" 2>/dev/null | head -n 3 | sed "s/^/# vm$i: /"
	tail -n 1 "$out/vm$i.log" | sed "s/^/# vm$i: /"
done
if [ -n "$bench" ]; then
	python3 "$top/tools/bench/multihost-figures.py" "$out" "$vms" "$per" "$root_port" |
		sed 's/^/# /'
fi
name=world_of_${n}_ranks_across_${vms}_vms_forms_and_tears_down
if [ "$ok" -eq "$n" ] && [ "$failed" -eq 0 ] && [ "${leaked:-0}" -eq 0 ]; then
	echo "ok 1 $name # $ok ranks ok"
	echo "1 passed, 0 failed"
	exit 0
fi
echo "not ok 1 $name # $ok of $n ranks ok, $failed VMs failed${leaked:+, $leaked frames left the loopback}"
echo "0 passed, 1 failed"
exit 1
