#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The encd demo. Runs inside the test VM (tools/vm/run.sh), never on the
# host: it loads encd on one node of a two-node P2P pod, makes this node's 8
# NeuronCores ranks 0..7 of a 16-rank world through libenc
# (build/tools/gcomm-demo), shows the global comms, and unloads encd.
#
#   demo.sh [ENCD_KO [BUILD_DIR]]
#
# ENCD_KO defaults to $ENCD_KO from the environment, else to
# BUILD_DIR/<running kernel>/kmod/encd.ko; BUILD_DIR to build/ of this
# checkout. The pod is the Neuron driver's: with the test VM's fake driver
# ($NEURON_FAKE_KO, else the one built beside encd.ko) standing in for it,
# encd is loaded with no topology parameter and `encctl topo sync` gives it
# the pod, as the udev rule does on a Neuron host; without one, encd is
# loaded with the pod in its parameters. An encd already loaded is reloaded.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$top/build}
ko=${1:-${ENCD_KO:-$build/$(uname -r)/kmod/encd.ko}}
fake=${NEURON_FAKE_KO:-$(dirname "$(dirname "$ko")")/selftests/neuron_fake/neuron_fake.ko}
demo=$build/tools/gcomm-demo
encctl=$build/tools/encctl

# insmod here would load encd into whatever kernel runs this: only the VM's.
if ! grep -q 'encdvm\.' /proc/cmdline; then
	echo "demo.sh: not in the encd test VM; run it with 'make demo'" >&2
	exit 2
fi
for f in "$ko" "$demo"; do
	[ -e "$f" ] || { echo "demo.sh: $f is missing: run 'make'" >&2; exit 1; }
done

grep -q '^encd ' /proc/modules && rmmod encd
if [ -e "$fake" ]; then
	grep -q '^neuron_fake ' /proc/modules && rmmod neuron_fake
	# 16 devices of 2 cores, the election done: node 0 of 2.
	insmod "$fake" pod_type=1 pod_sz=2 node_id=0 mode=2
	insmod "$ko"
	trap 'rmmod encd; rmmod neuron_fake' EXIT
	echo "encd loaded with no topology parameter; the (fake) Neuron driver's facts:"
	"$encctl" topo sync
	echo
	"$encctl" topo | head -n 3
else
	insmod "$ko" pod_type=1 pod_sz=2 pod_node_id=0
	trap 'rmmod encd' EXIT
	echo "encd loaded as node 0 of a 2-node P2P pod (no Neuron driver: from its parameters):"
	"$encctl" topo | head -n 2
fi
echo

"$demo" -c 8 -f 0 -w 16 -r 127.0.0.1:61000

# Then a whole world: 16 ranks over loopback with their replica groups, shown
# by `encctl status` while they hold it.
echo
"$top/tools/world-demo.sh"
