"""Search options side by side on the valid split: BLEU and length ratio per setting (docs/search.md).

Not part of the package: the measurement behind docs/search.md's 2026-11-25 table. Each model
decodes, once per setting, the valid split's long sources (10+ words, the 14+ ones scored apart)
and a seeded sample of all its sources (short sentences must not suffer); BLEU and length ratio
are `corpus_scores` against every reference of a source. Never the test split: the defaults are
chosen here. Usage, from a checkout with a split and trained models at hand:

    python docs/scripts/search_choice.py scores artifacts/splits models/seq2seq/model.pt /tmp/transformer.pt
    python docs/scripts/search_choice.py speed artifacts/splits models/seq2seq/model.pt /tmp/transformer.pt

`speed`: sentences/s of a few settings relative to the baseline, on one seeded sample, the
settings taking turns block by block (reversed in odd blocks) so a machine whose load drifts
slows all alike. One thread throughout. The table's rows and the speed column of fairseq's live beam
came from a search option since removed (docs/search.md).
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import replace

SAMPLE, SEED = 1_000, 0
SPEED_SAMPLE, SPEED_BLOCKS = 300, 3
SPEED_SETTINGS = ("baseline (alpha 1.0)", "beta 0.1", "min_len 0.5")
LONG, VERY_LONG = 10, 14  # words: the buckets scored apart
BASE = {"beam_size": 8, "length_penalty": 1.0}  # params.yaml's search before this comparison (docs/search.md)
SETTINGS = {  # name: what it changes in BASE
    "baseline (alpha 1.0)": {},
    "alpha 0.6": {"length_penalty": 0.6},
    "alpha 1.5": {"length_penalty": 1.5},
    "alpha 2.0": {"length_penalty": 2.0},
    "beta 0.1": {"coverage_penalty": 0.1},
    "beta 0.2": {"coverage_penalty": 0.2},
    "beta 0.4": {"coverage_penalty": 0.4},
    "min_len 0.5": {"min_len_ratio": 0.5},
    "min_len 0.8": {"min_len_ratio": 0.8},
    "alpha 1.5, beta 0.2": {"length_penalty": 1.5, "coverage_penalty": 0.2},
}


def search_params(name: str):
    from attention_lab.inference.translator import SearchParams

    return replace(SearchParams(), **{**BASE, **SETTINGS[name]})


def scores(splits: str, models: list[str]) -> None:
    import torch

    from attention_lab.data.splits import load_split, references, word_count
    from attention_lab.evaluation.bleu import corpus_scores
    from attention_lab.inference.translator import Translator

    torch.set_num_threads(1)
    refs = references(load_split(splits, "valid"))
    words = {source: word_count(source) for source in refs.index}
    long = [s for s in refs.index if words[s] >= LONG]
    sample = random.Random(SEED).sample(list(refs.index), SAMPLE)
    sources = sorted(set(long) | set(sample))
    sets = {f"{VERY_LONG}+ words": [s for s in long if words[s] >= VERY_LONG], f"{LONG}+ words": long,
            f"sample of {SAMPLE}": sample}
    print(f"valid: {len(refs)} distinct sources; " + "; ".join(f"{k}: {len(v)}" for k, v in sets.items()))
    for model in models:
        translator = Translator.load(model, "cpu")
        print(f"\n{model}\n")
        print("| setting | " + " | ".join(f"{k}: BLEU, length ratio" for k in sets) + " |")
        print("| --- | " + " | ".join("---" for _ in sets) + " |")
        for name in SETTINGS:
            texts = dict(zip(sources, (t.text for t in translator.translate(sources, search_params(name)))))
            cells = []
            for subset in sets.values():
                scores = corpus_scores([texts[s] for s in subset], [refs[s] for s in subset])
                cells.append(f"{scores['bleu']:.2f}, {scores['length_ratio']:.3f}")
            print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def speed(splits: str, models: list[str]) -> None:
    import torch

    from attention_lab.data.splits import load_split, references
    from attention_lab.inference.translator import Translator

    torch.set_num_threads(1)
    sources = random.Random(SEED).sample(list(references(load_split(splits, "valid")).index), SPEED_SAMPLE)
    print("| model | " + " | ".join(SPEED_SETTINGS) + " |")
    print("| --- | " + " | ".join("---" for _ in SPEED_SETTINGS) + " |")
    for model in models:
        translator = Translator.load(model, "cpu")
        translator.translate(sources, search_params(SPEED_SETTINGS[0]))  # warm-up: the first call pays for set-up
        seconds = dict.fromkeys(SPEED_SETTINGS, 0.0)
        for block in range(SPEED_BLOCKS):
            for name in SPEED_SETTINGS[:: 1 if block % 2 == 0 else -1]:
                start = time.perf_counter()
                translator.translate(sources, search_params(name))
                seconds[name] += time.perf_counter() - start
        base = seconds[SPEED_SETTINGS[0]]
        cells = [f"{base / s:.2f}x ({SPEED_SAMPLE * SPEED_BLOCKS / s:.0f}/s)" for s in seconds.values()]
        print(f"| {model} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in ("scores", "speed"):
        sys.exit(__doc__)
    {"scores": scores, "speed": speed}[sys.argv[1]](sys.argv[2], sys.argv[3:])
