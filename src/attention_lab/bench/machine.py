"""What every benchmark reports beside its figures: the machine they were measured on."""

from __future__ import annotations

import contextlib
import os
import platform
from pathlib import Path

import torch


def cpu_name() -> str:
    """The CPU's model name from /proc/cpuinfo (Linux x86), else what `platform` knows."""
    with contextlib.suppress(OSError, StopIteration):  # no file, or no "model name" line (aarch64)
        return next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name"))
    return platform.processor() or platform.machine()


def machine(device: torch.device) -> dict:
    gpu = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    return {"cpu": cpu_name(), "cpu_cores": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "torch": torch.__version__, "device": gpu}
