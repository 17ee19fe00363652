"""Inference speed for `attention-lab bench`: decoding batched against one sentence at a time, and
the start-up of `attention-lab translate` in a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from attention_lab.inference.translator import SearchParams, Translator

def decoding_speed(translator: Translator, sources: list[str], beam_size: int, one_by_one: int) -> dict:
    results = {}
    for name, beam in (("greedy", 1), ("beam", beam_size)):
        search = SearchParams(beam_size=beam)
        start = time.perf_counter()
        translator.translate(sources, search)
        batched = len(sources) / (time.perf_counter() - start)
        subset = sources[:one_by_one]
        start = time.perf_counter()
        for sentence in subset:
            translator.translate([sentence], search)
        single = len(subset) / (time.perf_counter() - start)
        results[name] = {"beam_size": beam, "sentences": len(sources),
                         "batched_sentences_per_s": round(batched, 1),
                         "one_by_one_sentences_per_s": round(single, 1),
                         "batching_speedup": round(batched / single, 1)}
    return results


def timed_subprocess(code: str) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(f"benchmark subprocess failed: {done.stderr.strip()[-2000:]}")
    return seconds, done.stdout


def startup(model_dir: Path) -> dict:
    """Wall time of `attention-lab translate "Go."` in a fresh Python, and of `import torch` alone."""
    translate = (
        "import atexit, json, sys\n"
        "from attention_lab.inference import training_only\n"
        "atexit.register(lambda: sys.__stdout__.write('\\n' + json.dumps(training_only(list(sys.modules)))))\n"
        "from attention_lab.cli import main\n"
        f"sys.argv = ['attention-lab', 'translate', '--model', {str(model_dir)!r}, 'Go.']\n"
        "main()\n")
    seconds, out = timed_subprocess(translate)
    torch_seconds, _ = timed_subprocess("import torch")
    return {"translate_go_seconds": round(seconds, 2), "import_torch_seconds": round(torch_seconds, 2),
            "translate_over_import_torch": round(seconds / torch_seconds, 2),
            "translation": out.strip().splitlines()[0],
            "training_stack_imported": json.loads(out.strip().splitlines()[-1])}
