"""Everyday sentences, written apart from the project and none from the corpus, translated by each model
greedy and with the beam (docs/trust.md): a markdown table of BLEU and chrF (`evaluation.bleu.corpus_scores`),
numbers kept, names kept and sentences/s, beside the test split's figures from the model's `evaluate` stage
(`reports/evaluate/metrics.json` two folders above the model, as `dvc repro` lays it out; none without it).
`--show N` then prints each model's and search's N sentences of lowest sentence chrF.

    python docs/scripts/everyday.py models/seq2seq [MODEL_DIR ...] [--tsv ../shared/data/everyday-dev.tsv] [--beam 8]

The set: one sentence a line, English<TAB>French, one reference each.
Numbers kept: of the sentences whose source has a digit group, those whose output lacks none of them
(`data.numbers.missing_numbers`: `2:15` written `14 h 15` lacks the 2). The test split's figure is
`evaluate`'s `number_fidelity`, which asks only for the groups a reference writes in digits.
Names kept: a name is a source word (`data.corpus_words.WORD`) that starts with a capital, is not the line's
first word nor `I`, is no word of the corpus (the tokenizer's corpus words, lower-cased: `Monday` and the
corpus's `Tom` are; a model without them knows none), and that the reference writes too, as `keeps_numbers` asks
for no number the references spell out (`Lisbon` is `Lisbonne`); kept: the output has it as a word, verbatim.
Names are counted, not sentences, each once a sentence.
"""

import argparse
import json
import time
from pathlib import Path

import sacrebleu

from attention_lab.data.corpus_words import WORD, CorpusWords
from attention_lab.data.numbers import DIGIT_GROUP, missing_numbers
from attention_lab.errors import UserError, run_main
from attention_lab.evaluation.bleu import corpus_scores
from attention_lab.inference.translator import SearchParams, Translator

HEADER = "| model | set, search | BLEU | chrF | numbers kept | names kept | sentences/s |\n" + "| --- " * 7 + "|"


def read_pairs(path: str) -> list[tuple[str, str]]:
    """The set's (English, French) pairs; a file or line that is not one is a one-line error naming it."""
    pairs = []
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            for number, line in enumerate(handle, 1):
                source, tab, reference = line.rstrip("\r\n").partition("\t")
                if not (source.strip() and tab and reference.strip()) or "\t" in reference:
                    raise UserError(f"{path}:{number}: not English<TAB>French (one tab, text on both sides)")
                pairs.append((source, reference))
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if not pairs:
        raise UserError(f"{path}: no sentences")
    return pairs


def names(source: str, reference: str, words: CorpusWords | None) -> list[str]:
    """The names of `source`, as the module's docstring defines them."""
    written = set(WORD.findall(reference))
    return list(dict.fromkeys(word for word in WORD.findall(source)[1:] if word[0].isupper() and word != "I"
                              and word in written and (words is None or word.lower() not in words.source)))


def kept(part: int, whole: int) -> str:  # `5 of 8 (62 %)`
    return f"{part} of {whole} ({100 * part / whole:.0f} %)" if whole else "none in the set"


def row(sources: list[str], texts: list[str], refs: list[str], words: CorpusWords | None) -> str:
    """The table's middle columns (BLEU to names kept) for one model's and search's outputs."""
    scores = corpus_scores(texts, [[r] for r in refs])
    numbered = [(s, t) for s, t in zip(sources, texts) if DIGIT_GROUP.search(s)]
    named = [(name, t) for s, t, r in zip(sources, texts, refs) for name in names(s, r, words)]
    return (f"{scores['bleu']:.1f} | {scores['chrf']:.1f} | "
            f"{kept(sum(not missing_numbers(s, t) for s, t in numbered), len(numbered))} | "
            f"{kept(sum(name in WORD.findall(t) for name, t in named), len(named))}")


def search_name(beam: int) -> str:
    return "greedy" if beam == 1 else f"beam {beam}"


def test_rows(model: str) -> list[str]:
    """The test split's figures of the model's `evaluate` stage, where `dvc repro` put them."""
    path = Path(model).parent.parent / "reports" / "evaluate" / "metrics.json"
    try:
        metrics = json.loads(path.read_text(encoding="utf-8"))
        return [f"| {model} | test, {search_name(m['beam_size'])} | {m['bleu']:.1f} | {m['chrf']:.1f} | "
                f"{kept(round(m['number_fidelity'] * m['number_sources']), m['number_sources'])} | | "
                f"{m['sentences_per_s']:.1f} |" for m in (metrics["greedy"], metrics["beam"])]
    except FileNotFoundError:
        return []
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{path}: not the evaluate stage's metrics ({type(exc).__name__}: {exc})") from None


def model_set_arguments(doc: str, tsv: str) -> argparse.Namespace:
    """The arguments of a script that translates a set of lines with model files: MODEL ..., --tsv (default
    `tsv`), --beam, --show N (docs/scripts/meaning_check.py uses them too)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", metavar="MODEL")
    parser.add_argument("--tsv", default=tsv)
    parser.add_argument("--beam", type=int, default=8)
    parser.add_argument("--show", type=int, default=0, metavar="N")
    args = parser.parse_args()
    if args.beam < 1 or args.show < 0:
        parser.error("--beam is at least 1, --show at least 0")
    return args


def main() -> None:
    args = model_set_arguments(__doc__, "../shared/data/everyday-dev.tsv")
    sources, refs = map(list, zip(*read_pairs(args.tsv)))
    translators = {model: Translator.load(model, "cpu") for model in args.models}  # a bad one before any work
    worst = []
    print(HEADER, flush=True)
    for model, translator in translators.items():
        for beam in (1, args.beam):
            start = time.perf_counter()
            texts = [t.text for t in translator.translate(sources, SearchParams(beam_size=beam))]
            speed = len(sources) / (time.perf_counter() - start)
            figures = row(sources, texts, refs, translator.tokenizer.words)
            print(f"| {model} | everyday, {search_name(beam)} | {figures} | {speed:.1f} |", flush=True)
            chrf = [sacrebleu.sentence_chrf(t, [r]).score for t, r in zip(texts, refs)]
            lowest = sorted(range(len(sources)), key=chrf.__getitem__)[:args.show]
            worst += [(f"{model}, {search_name(beam)}", chrf[i], sources[i], texts[i], refs[i]) for i in lowest]
        for line in test_rows(model):
            print(line, flush=True)
    for label, chrf, source, text, ref in worst:
        print(f"\n{label}, chrF {chrf:.1f}\n  source:    {source}\n  output:    {text}\n  reference: {ref}")


if __name__ == "__main__":
    run_main(main)
