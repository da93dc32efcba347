# SPDX-License-Identifier: GPL-2.0
"""python3 -m encd_peer: a fake host as a process (fakehost.main())."""
import sys

from .fakehost import main

sys.exit(main(sys.argv[1:]))
