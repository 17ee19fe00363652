"""The C allocator's settings for training on the CPU.

A training step allocates and frees the same large activations every step (the default model's
logits alone are ~13 MB). glibc's malloc serves blocks over its mmap threshold with fresh pages
from the kernel and returns freed memory at the top of its heap to the kernel, so every step pays
page faults on memory it had a moment ago; and with batches of varying shapes its adaptive
threshold keeps sliding back. Fixing both thresholds keeps that memory in the process: measured on
the default model's CPU training steps, 1.2x faster (docs/speed.md). Elsewhere than glibc, nothing
changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h
MMAP_THRESHOLD = 32 * 2**20  # glibc's largest: blocks up to this come from the heap and are reused
TRIM_THRESHOLD = 2**30  # free memory kept at the heap's top before any is returned to the kernel


def keep_freed_memory() -> bool:
    """Set glibc's mmap and trim thresholds for this process; False where the C library is not
    glibc (macOS, musl) and nothing was changed."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
