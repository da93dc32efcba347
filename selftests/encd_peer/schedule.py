# SPDX-License-Identifier: GPL-2.0
"""The schedules of kmod/schedule.h, as the specification gives them: the
binary tree for signatures, the hypercube for the unique id, the
dissemination barrier; and a node's tag (Linux's jhash2)."""

def tree_parent(r):
    return (r - 1) >> 1 if r else None


def tree_children(r, n):
    return [c for c in (2 * r + 1, 2 * r + 2) if c < n]


def cube_mask(r, n):
    mask = 1
    while not mask & r:
        mask <<= 1
        if n <= mask:
            break
    return mask


def cube_parent(r, n):
    m = cube_mask(r, n)
    return r & ~m if m & r else None


def cube_children(r, n):
    out, step = [], cube_mask(r, n) >> 1
    while step:
        if r + step < n:
            out.append(r + step)
        step >>= 1
    return out


def ceil_log2(n):
    r = 0
    while r < 32 and (1 << r) < n:
        r += 1
    return r


def dissem_to(r, n, k):
    return (r + (1 << k)) % n


def dissem_from(r, n, k):
    return (r + n - ((1 << k) % n)) % n


# --- the node tag: Linux's jhash2 over the participants ---

def _rol(x, k):
    return ((x << k) | (x >> (32 - k))) & 0xFFFFFFFF


def jhash2(words, initval):
    m = 0xFFFFFFFF
    n = len(words)
    a = b = c = (0xDEADBEEF + (n << 2) + initval) & m
    i = 0
    while n > 3:
        a = (a + words[i]) & m
        b = (b + words[i + 1]) & m
        c = (c + words[i + 2]) & m
        a = (a - c) & m; a ^= _rol(c, 4); c = (c + b) & m
        b = (b - a) & m; b ^= _rol(a, 6); a = (a + c) & m
        c = (c - b) & m; c ^= _rol(b, 8); b = (b + a) & m
        a = (a - c) & m; a ^= _rol(c, 16); c = (c + b) & m
        b = (b - a) & m; b ^= _rol(a, 19); a = (a + c) & m
        c = (c - b) & m; c ^= _rol(b, 4); b = (b + a) & m
        n -= 3
        i += 3
    if n == 0:
        return c
    if n == 3:
        c = (c + words[i + 2]) & m
    if n >= 2:
        b = (b + words[i + 1]) & m
    a = (a + words[i]) & m
    c ^= b; c = (c - _rol(b, 14)) & m
    a ^= c; a = (a - _rol(c, 11)) & m
    b ^= a; b = (b - _rol(a, 25)) & m
    c ^= b; c = (c - _rol(b, 16)) & m
    a ^= c; a = (a - _rol(c, 4)) & m
    b ^= a; b = (b - _rol(a, 14)) & m
    c ^= b; c = (c - _rol(b, 24)) & m
    return c


def node_tag(stream, participants, world=False):
    """The tag a node's messages carry. The world's own node hashes apart,
    by its size alone: its participants are every rank in order."""
    if world:
        return jhash2([len(participants)], stream + 256)
    return jhash2(list(participants), stream)
