"""Whether bf16 pays on this CPU. Processors with native bf16 arithmetic (AVX512_BF16, or AMX-BF16, on x86-64)
multiply bf16 matrices through oneDNN at about 1.7x the float32 rate; others emulate bf16 with float32
arithmetic and conversions, where it has no rate of its own to gain (docs/speed.md: bf16 on the CPU).

Decoding (`attention-lab translate --precision`) chooses apart from training: a search step multiplies a few
rows at a time, where autocast's casts may cost what the products gain, and a search's argmax may turn on a
rounding (docs/scripts/decode_precision.py measures sentences/s, and BLEU and chrF with their significance, both
ways)."""

from __future__ import annotations

import torch

NATIVE_BF16 = ("avx512_bf16", "amx_bf16")  # `torch.cpu.get_capabilities()` keys; ARM's bf16 is not measured here
DECODING_PRECISIONS = ("auto", "32", "bf16")  # `translate --precision`
# The architectures `auto` decodes under bf16 autocast on a CPU with native bf16, as measured on the whole test split
# (docs/scripts/decode_precision.py; docs/speed.md, "Decoding in bf16"): the Transformer, 1.33x (greedy) and 1.52x
# (beam 8) as fast, its BLEU the same (p 0.389) or better (+0.08, p 0.032). Not the recurrent model: bf16 made its
# greedy search worse beyond chance (-0.16 BLEU, p 0.019) and its beam no faster. Float32 on every other device
# (emulated bf16 has no rate to gain; decoding on CUDA is not measured); `--precision bf16` asks for it anywhere.
AUTO_BF16_DECODING = frozenset({"transformer"})


def native_bf16_cpu() -> bool:
    capabilities = torch.cpu.get_capabilities()
    return any(capabilities.get(flag) for flag in NATIVE_BF16)


def decoding_dtype(precision: str, device: torch.device, arch: str) -> torch.dtype | None:
    """The autocast dtype a search with a model of `arch` (`rnn` or `transformer`) on `device` runs in for
    `precision` (one of DECODING_PRECISIONS); None: float32, no autocast."""
    if precision not in DECODING_PRECISIONS:
        raise ValueError(f"decoding precision {precision!r}: expected one of {', '.join(DECODING_PRECISIONS)}")
    if precision == "bf16" or precision == "auto" and device.type == "cpu" and arch in AUTO_BF16_DECODING \
            and native_bf16_cpu():
        return torch.bfloat16
    return None


def decoding_autocast(precision: str, device: torch.device, arch: str) -> torch.autocast:
    """The context a search with a model of `arch` runs in for `precision` on `device`: bf16 autocast, or none
    (`decoding_dtype`)."""
    dtype = decoding_dtype(precision, device, arch)
    return torch.autocast(device.type, dtype=torch.bfloat16, enabled=dtype is not None)


def recurrence_dtype(device: str, weights: torch.dtype) -> torch.dtype:
    """The dtype a recurrent layer runs in: bf16 under bf16 autocast on the CPU, the state and the gradients through
    time included, where its small per-step products run 1.6x to 1.9x as fast forward and backward (docs/speed.md:
    bf16 on the CPU); else the weights' own. Autocast alone casts only `nn.GRU`'s products, leaving its gates and state
    in float32, and the hand-written Bahdanau recurrence turns it off; on CUDA, where cuDNN runs the encoder, this is
    not measured."""
    if device == "cpu" and torch.is_autocast_enabled(device) and torch.get_autocast_dtype(device) == torch.bfloat16:
        return torch.bfloat16
    return weights
