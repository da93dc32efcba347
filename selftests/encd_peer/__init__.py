#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A user-space peer of encd's bootstrap, written from its specification.

Documentation/bootstrap.rst ("The wire protocol") says what every frame is
and what each side must do; this package does it with nothing but the
standard library, so that tests can stand in for a host of a world, on
either side of any connection, and misbehave on purpose:

  wire       the protocol's constants, frame headers and payloads, held to
             kmod/wire.h by check_against() (check_tree(): the tree's own);
  link       Link, one connection's protocol state, without I/O: the
             handshake (initiator or responder), then tagged frames with a
             sequence number per direction; Conn, a blocking connection
             built on a Link, for strangers and one-off frames;
  schedule   the schedules of kmod/schedule.h and the specification: the
             binary tree for signatures, the hypercube for the unique id,
             the ring and the dissemination barrier;
  fakehost   FakeHost, a host agent in a thread (or a process, see main()):
             it joins a root host (or is the root), registers any set of
             ranks, takes the table, opens data links and speaks SIG, UID,
             RING and BARRIER for its ranks as the schedules say; it can
             withhold any of its messages (hold=...) and send anything
             (call());
  relay      Relay, a TCP relay in front of a host that parses the frames
             going through it, keeps copies, holds back chosen types and
             injects others.

Tests `import encd_peer as P` and use the names below; this file run as a
script (python3 encd_peer/__init__.py, or python3 -m encd_peer) is a fake
host as a process (fakehost.main()).
"""
import os
import sys

if __name__ == "__main__" and not __package__:
    # Run as a script, by its path: the package is then imported by name.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from encd_peer.fakehost import main
    sys.exit(main(sys.argv[1:]))

# What the tests use, as P.name (flake8: E402, F401).
from .wire import (MAGIC, VERSION, HDR, TAG_LEN, NONCE_LEN, PROOF_LEN, HOST_ID_LEN, UID_LEN,
                   TEXT_MAX, REGISTER_MAX, HELLO, CHALLENGE, PROOF, JOIN, REGISTER, REJECT, TABLE,
                   DEATH, LINK, SIG, UID, RING, BARRIER, WELCOME, DIGEST, NAMES, CONTROL, DATA,
                   NO_RANK, CHECK_SIGS, SIG_ALL_GROUPS, ROUTE, HANDSHAKE_S, ZERO_SIG,
                   ProtocolError, header, raw_frame, addr_wire, addr_unwire, parse_hostport,
                   route, death_payload, depart_block, depart_blocks, DEPART, DEPART_MAX,
                   NEWS_MAX, NEWS_EVERY, COMMS_MAX, reject_payload, text_of, SIZES, OFFSETS,
                   WireMismatch, TABLE_PART_MAX, HOSTS_MAX,
                   parse_wire_h, check_against, tree_wire_h, check_tree)
from .link import mac, world_key, bind_key, tag_of, Link, Conn, Peer
from .schedule import (tree_parent, tree_children, cube_mask, cube_parent, cube_children,
                       ceil_log2, dissem_to, dissem_from, jhash2, node_tag)
from .fakehost import (LEFT, OWN_DEADLINE_S, VALIDATING, BROADCASTING, CONNECTING, READY, FAILED,
                       TURN_S, HOLD_KINDS, Node, FakeHost, parse_ranks, main)
from .relay import Relay, socket_in_netns
