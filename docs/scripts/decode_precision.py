"""float32 against bf16 autocast for decoding (`translate --precision`, `model/precision.py`), on one thread:
sentences/s, BLEU and chrF with their 95 % confidence intervals, bf16's p-value against float32, and the outputs
that differ, per model and search, on the test split.

    OMP_NUM_THREADS=1 python docs/scripts/decode_precision.py /work/models2/rnn/model.pt \
        /work/models2/tf/model.pt --data /work/runs/rnn/artifacts/splits [--sentences N] [--beam 8] [--rounds 3]

Each model translates the split's distinct sources (`data.splits.references`; the first N with `--sentences`)
greedy and with the beam, as `translate --precision` does (batched, the default search otherwise), once in each
precision a round; rounds alternate the two, so that another process's load slows a pass, not a precision.
`sentences/s` is a precision's best pass; `over float32` the ratio of the best passes, then the lowest and highest
ratio of one round's two passes (the first round pays the set-up of both). The texts are the first round's.

Whether bf16's outputs differ from float32's beyond chance: sacrebleu's paired bootstrap resampling (Koehn 2004;
`sacrebleu.significance.PairedTest`, 1,000 resamples of the sources, seed 12345), with `evaluation.bleu.corpus_scores`'
BLEU (13a, case-insensitive) and chrF against every reference of each source. `±`: the half-width of the 95 %
confidence interval of the score over the resamples; `p`: how often resampling alone moves the score by as much as
bf16 does (p < 0.05: a significant difference). `differ`: sources whose bf16 text is not the float32 one. Prints a
Markdown table, after the machine and whether its CPU multiplies bf16 natively.
"""

import argparse
import time

import sacrebleu
import torch
from sacrebleu.significance import PairedTest

from attention_lab.bench.machine import machine
from attention_lab.data.splits import load_split, references
from attention_lab.errors import UserError, run_main
from attention_lab.evaluation.bleu import reference_streams
from attention_lab.inference.translator import SearchParams, Translator
from attention_lab.model.precision import native_bf16_cpu

PRECISIONS = ("32", "bf16")
HEADER = ("| model | search | precision | sentences/s | over float32 (rounds) | BLEU ± 95 % | p | chrF ± 95 % | p "
          "| differ from float32 |\n" + "| --- " * 10 + "|")


def timed_outputs(translator: Translator, sources: list[str], search: SearchParams,
                  rounds: int) -> tuple[dict[str, list[float]], dict[str, list[str]]]:
    """Per precision: the sentences/s of each of `rounds` passes (alternating), and the texts of the first."""
    speeds: dict[str, list[float]] = {choice: [] for choice in PRECISIONS}
    texts: dict[str, list[str]] = {}
    for _ in range(rounds):
        for choice in PRECISIONS:
            translator.precision = choice  # as `Translator.load(..., precision=choice)` in `translate`
            start = time.perf_counter()
            out = [t.text for t in translator.translate(sources, search)]
            speeds[choice].append(len(sources) / (time.perf_counter() - start))
            texts.setdefault(choice, out)
    return speeds, texts


def paired_bootstrap(texts: dict[str, list[str]], refs: list[list[str]]) -> dict[str, list]:
    """Per metric ("BLEU", "chrF"): sacrebleu's `Result` (score, ci, p_value) for each precision, float32 first."""
    metrics = {"BLEU": sacrebleu.BLEU(tokenize="13a", lowercase=True), "chrF": sacrebleu.CHRF()}
    test = PairedTest([(choice, texts[choice]) for choice in PRECISIONS], metrics, reference_streams(refs),
                      test_type="bs", n_samples=1000)
    _, results = test()  # keyed by the scores' own names ("chrF2"), in the metrics' order after "System"
    return dict(zip(metrics, list(results.values())[1:]))


def cell(result, differ: int) -> str:
    """`score ± ci | p`; with no output differing there is nothing to test (sacrebleu's p would be 1/1001)."""
    p = "" if result.p_value is None else "1" if differ == 0 else f"{result.p_value:.3f}"
    return f"{result.score:.2f} ± {result.ci:.2f} | {p}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", metavar="MODEL")
    parser.add_argument("--data", required=True, help="the split stage's folder whose test split is decoded")
    parser.add_argument("--sentences", type=int, default=None, metavar="N")
    parser.add_argument("--beam", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.beam < 1 or args.rounds < 1 or (args.sentences is not None and args.sentences < 1):
        raise UserError("--beam, --rounds and --sentences are at least 1")
    torch.set_num_threads(1)  # one core's rate, as the training comparisons in docs/speed.md
    split = references(load_split(args.data, "test")).iloc[: args.sentences]
    sources, refs = list(split.index), [list(r) for r in split]
    translators = {model: Translator.load(model, "cpu") for model in args.models}  # a bad one before any work
    print(f"{machine(torch.device('cpu'))}, native bf16: {native_bf16_cpu()}, {len(sources)} test sources, "
          f"{args.rounds} rounds\n")
    print(HEADER, flush=True)
    for model, translator in translators.items():
        for beam in (1, args.beam):
            speeds, texts = timed_outputs(translator, sources, SearchParams(beam_size=beam), args.rounds)
            scores = paired_bootstrap(texts, refs)
            ratios = [bf16 / fp32 for fp32, bf16 in zip(speeds["32"], speeds["bf16"])]
            for i, choice in enumerate(PRECISIONS):
                differ = sum(a != b for a, b in zip(texts[choice], texts["32"]))
                over = f"{max(speeds[choice]) / max(speeds['32']):.2f}x"
                if choice != "32":
                    over += f" ({min(ratios):.2f}-{max(ratios):.2f}x)"
                print(f"| {model} | {'greedy' if beam == 1 else f'beam {beam}'} | {choice} | "
                      f"{max(speeds[choice]):.1f} | {over} | {cell(scores['BLEU'][i], differ)} | "
                      f"{cell(scores['chrF'][i], differ)} | {differ} of {len(sources)} |", flush=True)


if __name__ == "__main__":
    run_main(main)
