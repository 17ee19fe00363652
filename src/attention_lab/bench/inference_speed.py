"""Inference speed for `attention-lab bench`: decoding batched against one sentence at a time, the
default search with a Transformer's self-attention maps asked for against without, with glossaries of
10, 100 and 1,000 terms against without, and the start-up of `attention-lab translate` in a fresh process."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from attention_lab.bench.budget import Repeat, every
from attention_lab.inference.translator import SearchParams, Translation, Translator
from attention_lab.text.glossary import Glossary

GLOSSARY_SIZES = (10, 100, 1_000)
SEARCH_ROUNDS = 1  # batched and one by one, greedy and beam: one pass each
ROUNDS = 3  # the self-attention maps' and the glossaries' alternating rounds (two where they agree: bench/budget.py)


def per_second(work: Callable[[], object], count: int) -> float:
    """`count` divided by the seconds `work()` takes."""
    start = time.perf_counter()
    work()
    return count / (time.perf_counter() - start)


def best(rounds: list[dict[str, float]]) -> dict[str, float]:
    """Each rate's best over `rounds`: a machine's other load slows one pass, not the method."""
    return {key: max(r[key] for r in rounds) for key in rounds[0]}


def decoding_speed(translator: Translator, sources: list[str], beam_size: int, one_by_one: int,
                   repeat: Repeat = every) -> dict:
    """Greedy and beam search's sentences/s, batched and one by one; for a model with self-attention
    (the Transformer), `self_maps` too; `glossary`. Each measured through `repeat` (`bench/budget.py`),
    which may skip it: then its key is left out."""
    results = {}
    for name, beam in (("greedy", 1), ("beam", beam_size)):
        search, subset = SearchParams(beam_size=beam), sources[:one_by_one]
        rounds = repeat(lambda: {"batched": per_second(lambda: translator.translate(sources, search), len(sources)),
                                 "single": per_second(lambda: [translator.translate([s], search) for s in subset],
                                                      len(subset))}, SEARCH_ROUNDS, name)
        if rounds:
            rates = best(rounds)
            results[name] = {"beam_size": beam, "sentences": len(sources),
                             "batched_sentences_per_s": round(rates["batched"], 1),
                             "one_by_one_sentences_per_s": round(rates["single"], 1),
                             "batching_speedup": round(rates["batched"] / rates["single"], 1)}
    if translator.model.self_attends and (maps := self_maps_cost(translator, sources, repeat)):
        results["self_maps"] = maps
    if glossary := glossary_cost(translator, sources, repeat):
        results["glossary"] = glossary
    return results


def sampled_glossary(translator: Translator, size: int, seed: int = 0) -> Glossary:
    """`size` terms as a user's glossary of names and product words might be: words of the training text's
    English drawn at random (most are rare, as a domain's terms are in everyday text), each kept as typed, so
    that the search must write it whole. Words the model cannot write or with digits are not drawn."""
    tgt, words = translator.tokenizer.tgt, translator.tokenizer.words
    known = sorted(w for w in (words.source if words else ()) if w.isalpha() and all(map(tgt.reads, w)))
    drawn = random.Random(seed).sample(known, min(size, len(known)))
    return Glossary([(word, word) for word in drawn], f"{size} sampled terms")


def glossary_cost(translator: Translator, sources: list[str], repeat: Repeat = every) -> dict | None:
    """The default search's sentences/s without a glossary and with `sampled_glossary`s of GLOSSARY_SIZES terms
    (up to ROUNDS rounds through `repeat`, each round all of them in turn; the best of each), the share of
    sources holding a term, and the terms written; None where `repeat` skipped it."""
    search = SearchParams()
    glossaries = {0: None, **{size: sampled_glossary(translator, size) for size in GLOSSARY_SIZES}}
    outputs: dict[int, list[Translation]] = {}

    def translated(size: int) -> None:
        outputs[size] = translator.translate(sources, search, glossary=glossaries[size])

    rounds = repeat(lambda: {str(size): per_second(lambda: translated(size), len(sources)) for size in glossaries},
                    ROUNDS, "glossary")
    if not rounds:
        return None
    rates = best(rounds)
    result = {"beam_size": search.beam_size, "sentences": len(sources), "none_sentences_per_s": round(rates["0"], 1)}
    for size, glossary in list(glossaries.items())[1:]:
        terms = [len({m.french for m in glossary.matches(s)}) for s in sources]
        missing = sum(len(t.missing_terms) for t in outputs[size])
        result[f"terms_{size}"] = {"sentences_per_s": round(rates[str(size)], 1),
                                   "over_none": round(rates[str(size)] / rates["0"], 2),
                                   "sources_with_terms": round(sum(map(bool, terms)) / len(sources), 3),
                                   "term_use": round(1 - missing / sum(terms), 3) if sum(terms) else None}
    return result


def same_outputs(off: list[Translation], on: list[Translation]) -> bool:
    """Whether texts, output pieces, scores and attention are exactly the same."""
    return all((a.text, a.pieces, a.score) == (b.text, b.pieces, b.score) and np.array_equal(a.attention, b.attention)
               for a, b in zip(off, on, strict=True))


def self_maps_cost(translator: Translator, sources: list[str], repeat: Repeat = every) -> dict | None:
    """The default search's sentences/s with the self-attention maps (`translate(self_maps=True)`) off and
    on, and whether everything else came out the same; None where `repeat` skipped it. Off is the search as
    it was before the maps existed; on adds one teacher-forced pass per batch. Up to ROUNDS rounds alternate
    off and on and each keeps its best."""
    search = SearchParams()
    outputs: dict[bool, list[Translation]] = {}

    def translated(on: bool) -> None:
        outputs[on] = translator.translate(sources, search, self_maps=on)

    rounds = repeat(lambda: {key: per_second(lambda: translated(on), len(sources))
                             for key, on in (("off", False), ("on", True))}, ROUNDS, "self_maps")
    if not rounds:
        return None
    rates = best(rounds)
    return {"beam_size": search.beam_size, "sentences": len(sources),
            "off_sentences_per_s": round(rates["off"], 1), "on_sentences_per_s": round(rates["on"], 1),
            "on_over_off": round(rates["on"] / rates["off"], 2),
            "same_outputs": same_outputs(outputs[False], outputs[True])}


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
