"""float32 against bf16 autocast for decoding (`translate --precision`, `model/precision.py`), on one thread:
sentences/s, BLEU and chrF, and the outputs that differ, per model and search, on the test split.

    python docs/scripts/decode_precision.py /work/models/rnn/model.pt /work/models/tf/model.pt \
        --data /work/runs/rnn/artifacts/splits [--sentences N] [--beam 8] [--rounds 2]

Each model translates the split's first N distinct sources (`data.splits.references`; all of them without
`--sentences`) greedy and with the beam, as `translate` does (batched, the default search otherwise), once in
each precision a round; rounds alternate the two and each keeps its best time, so that another process's load
slows a pass, not a precision, and the first pass's set-up is not counted. BLEU and chrF are
`evaluation.bleu.corpus_scores`' (every reference of each source). `differ`: sources whose bf16 text is not the
float32 one. Prints a Markdown table, after the machine and whether its CPU multiplies bf16 natively.
"""

import argparse
import time

import torch

from attention_lab.bench.machine import machine
from attention_lab.data.splits import load_split, references
from attention_lab.errors import UserError, run_main
from attention_lab.evaluation.bleu import corpus_scores
from attention_lab.inference.translator import SearchParams, Translator
from attention_lab.model.precision import decoding_autocast, native_bf16_cpu

PRECISIONS = ("32", "bf16")
HEADER = ("| model | search | precision | sentences/s | over float32 | BLEU | chrF | differ from float32 |\n"
          + "| --- " * 8 + "|")


def timed_outputs(translator: Translator, sources: list[str], search: SearchParams,
                  rounds: int) -> dict[str, tuple[float, list[str]]]:
    """Per precision: (the best sentences/s of `rounds` passes, alternating, the texts of the first)."""
    best, texts = dict.fromkeys(PRECISIONS, 0.0), {}
    for _ in range(rounds):
        for choice in PRECISIONS:
            start = time.perf_counter()
            with decoding_autocast(choice, translator.device):
                out = [t.text for t in translator.translate(sources, search)]
            best[choice] = max(best[choice], len(sources) / (time.perf_counter() - start))
            texts.setdefault(choice, out)
    return {choice: (best[choice], texts[choice]) for choice in PRECISIONS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", metavar="MODEL")
    parser.add_argument("--data", required=True, help="the split stage's folder whose test split is decoded")
    parser.add_argument("--sentences", type=int, default=None, metavar="N")
    parser.add_argument("--beam", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if args.beam < 1 or args.rounds < 1 or (args.sentences is not None and args.sentences < 1):
        raise UserError("--beam, --rounds and --sentences are at least 1")
    torch.set_num_threads(1)  # one core's rate, as the training comparisons in docs/speed.md
    split = references(load_split(args.data, "test")).iloc[: args.sentences]
    sources, refs = list(split.index), [list(r) for r in split]
    translators = {model: Translator.load(model, "cpu") for model in args.models}  # a bad one before any work
    print(f"{machine(torch.device('cpu'))}, native bf16: {native_bf16_cpu()}, {len(sources)} test sources\n")
    print(HEADER, flush=True)
    for model, translator in translators.items():
        for beam in (1, args.beam):
            results = timed_outputs(translator, sources, SearchParams(beam_size=beam), args.rounds)
            base_speed, base_texts = results["32"]
            for choice, (speed, texts) in results.items():
                scores = corpus_scores(texts, refs)
                differ = sum(a != b for a, b in zip(texts, base_texts))
                print(f"| {model} | {'greedy' if beam == 1 else f'beam {beam}'} | {choice} | {speed:.1f} | "
                      f"{speed / base_speed:.2f}x | {scores['bleu']:.2f} | {scores['chrf']:.2f} | "
                      f"{differ} of {len(sources)} |", flush=True)


if __name__ == "__main__":
    run_main(main)
