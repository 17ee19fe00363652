"""Whether bf16 pays on this CPU. Processors with native bf16 arithmetic (AVX512_BF16, or AMX-BF16, on x86-64)
multiply bf16 matrices through oneDNN at about 1.7x the float32 rate; others emulate bf16 with float32
arithmetic and conversions, where it has no rate of its own to gain (docs/speed.md: bf16 on the CPU)."""

from __future__ import annotations

import torch

NATIVE_BF16 = ("avx512_bf16", "amx_bf16")  # `torch.cpu.get_capabilities()` keys; ARM's bf16 is not measured here


def native_bf16_cpu() -> bool:
    capabilities = torch.cpu.get_capabilities()
    return any(capabilities.get(flag) for flag in NATIVE_BF16)
