#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""torch.distributed doing encd's job, for make bench-peers: form the world
(init_process_group, gloo, init_method=tcp://), AND 17 bytes across it
(all_reduce, ReduceOp.BAND) and broadcast 129 bytes from rank 0. Prints one
JSON line: the time in init_process_group, in the first all_reduce +
broadcast and the median of REPS more (warm), in microseconds; import_us is
the time `import torch` took, which the launch's wall time includes.

    bench-torch.py RANK WORLD_SIZE PORT [REPS]
"""
import json
import statistics
import sys
import time

t_import = time.monotonic()
import torch  # noqa: E402 (timed)
import torch.distributed as dist  # noqa: E402
t_import = time.monotonic() - t_import

SIG_LEN, UID_LEN = 17, 129


def exchange(rank):
    sig = torch.full((SIG_LEN,), 0xA5, dtype=torch.uint8)
    sig[-1] = 1
    uid = torch.full((UID_LEN,), 0x3C if rank == 0 else 0, dtype=torch.uint8)
    dist.all_reduce(sig, op=dist.ReduceOp.BAND)
    dist.broadcast(uid, src=0)
    if int(sig[-1]) != 1 or int(uid[-1]) != 0x3C:
        sys.exit("bench-torch: rank %d: wrong result" % rank)


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: bench-torch.py RANK WORLD_SIZE PORT [REPS]")
    rank, size, port = (int(x) for x in sys.argv[1:4])
    reps = int(sys.argv[4]) if len(sys.argv) == 5 else 20
    t0 = time.monotonic()
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=size)
    t_init = time.monotonic() - t0
    t0 = time.monotonic()
    exchange(rank)
    t_first = time.monotonic() - t0
    warm = []
    for _ in range(reps):
        dist.barrier()
        t0 = time.monotonic()
        exchange(rank)
        warm.append(time.monotonic() - t0)
    print(json.dumps({"rank": rank, "size": size, "import_us": round(t_import * 1e6),
                      "init_us": round(t_init * 1e6), "exchange_us": round(t_first * 1e6),
                      "warm_us": round(statistics.median(warm) * 1e6)}), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
