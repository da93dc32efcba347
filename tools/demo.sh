#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The encd demo. Runs inside the test VM (tools/vm/run.sh), never on the
# host: it loads encd as one node of a simulated two-node P2P pod, makes this
# node's 8 NeuronCores ranks 0..7 of a 16-rank world through libenc
# (build/tools/gcomm-demo), shows the global comms, and unloads encd.
#
#   demo.sh [ENCD_KO [BUILD_DIR]]
#
# ENCD_KO defaults to $ENCD_KO from the environment, else to
# BUILD_DIR/<running kernel>/kmod/encd.ko; BUILD_DIR to build/ of this
# checkout. An encd already loaded is reloaded with the pod's parameters.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$top/build}
ko=${1:-${ENCD_KO:-$build/$(uname -r)/kmod/encd.ko}}
demo=$build/tools/gcomm-demo

# insmod here would load encd into whatever kernel runs this: only the VM's.
if ! grep -q 'encdvm\.' /proc/cmdline; then
	echo "demo.sh: not in the encd test VM; run it with 'make demo'" >&2
	exit 2
fi
for f in "$ko" "$demo"; do
	[ -e "$f" ] || { echo "demo.sh: $f is missing: run 'make'" >&2; exit 1; }
done

grep -q '^encd ' /proc/modules && rmmod encd
insmod "$ko" pod_type=1 pod_sz=2 pod_node_id=0
trap 'rmmod encd' EXIT

echo "encd loaded as node 0 of a 2-node P2P pod:"
for p in num_vcores vcores_per_device pod_type pod_sz pod_node_id reservation_id \
	virtual_server_size; do
	printf '  %-20s %s\n' "$p" "$(cat /sys/module/encd/parameters/$p)"
done
echo

"$demo" -c 8 -f 0 -w 16 -r 127.0.0.1:61000

# Then a whole world: 16 ranks over loopback with their replica groups, shown
# by `encctl status` while they hold it.
echo
"$top/tools/world-demo.sh"
