import platform
import subprocess
import sys

import pytest

from attention_lab.training.allocator import keep_freed_memory

# glibc's own accounting (mallinfo2) around activations of the default model's size: where a block
# comes from (mmap or the heap), and whether the heap keeps the memory once it is freed.
MALLINFO = """
import ctypes, sys, torch
from attention_lab.training.allocator import keep_freed_memory

class Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = Mallinfo2
if sys.argv[1] == "tuned":
    assert keep_freed_memory()
before = libc.mallinfo2()
x = torch.empty(4_000_000).fill_(1.0)  # 16 MB
held = libc.mallinfo2()
del x
torch.empty(5_000_000).fill_(1.0)  # 20 MB at the top of the heap, freed at once
after = libc.mallinfo2()
print(held.hblkhd - before.hblkhd, after.arena - before.arena)
"""

MB = 2**20


def accounting(mode: str) -> tuple[int, int]:
    """(bytes mmapped for the first block, what the heap has grown by once both are freed)."""
    done = subprocess.run([sys.executable, "-c", MALLINFO, mode], capture_output=True, text=True, check=True)
    mapped, kept = map(int, done.stdout.split())
    return mapped, kept


# Whether the C library is glibc, asked of Python, not of the function under test: a regression
# that makes it return False on glibc fails here instead of skipping.
GLIBC = platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not GLIBC, reason="glibc's malloc only")
def test_activations_come_from_the_heap_and_stay_there_when_freed():
    assert keep_freed_memory()
    mapped, _ = accounting("default")
    assert mapped >= 15 * MB  # glibc's own threshold: fresh pages from the kernel, unmapped on free
    mapped, kept = accounting("tuned")
    assert mapped == 0  # from the heap, where the next step's block of that size finds it
    assert kept >= 19 * MB  # freed but not returned to the kernel: no page faults on the next step
