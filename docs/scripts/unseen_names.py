"""BLEU of a model on the valid split as written and on its pairs that share a name, with every
shared name (Tom, Mary, Boston) replaced alike on both sides by a real name the corpus lacks, from
two sets (docs/trust.md); each with the names the model garbled written as typed (text/names.py)
and as the model wrote them. Greedy and beam 8; references are all of a source's.

    python docs/scripts/unseen_names.py models/seq2seq artifacts/splits

A model whose tokenizer predates the corpus's words (data/corpus_words.py) is given those of the train split.
"""

import sys
import zlib
from dataclasses import replace

import pandas as pd

from attention_lab.data.corpus_words import CorpusWords
from attention_lab.data.name_augmentation import NAME, shared_names
from attention_lab.data.splits import load_split, references
from attention_lab.evaluation.bleu import corpus_scores
from attention_lab.inference.translator import SearchParams, Translator

UNSEEN = ("Anna", "Pierre", "Julia", "Kenji", "Laura", "Michael", "Emma", "Peter", "Sofia", "Omar", "Olga", "Lukas",
          "Fatima", "Diego", "Ingrid", "Rahul")
OTHERS = ("Brown", "Jones", "Yuki", "Carlos", "Nadia", "Hans", "Chloe", "Liam", "Aisha", "Mateo", "Greta", "Ivan",
          "Priya", "Lucas", "Zoe", "Hugo")


def renamed_pairs(pairs: list[tuple[str, str]], unseen: tuple[str, ...] = UNSEEN) -> list[tuple[str, str]]:
    """Each pair sharing a name, its names replaced by unseen ones chosen from the pair's text."""
    out = []
    for source, target in pairs:
        names = shared_names(source, target)
        if not names:
            continue
        start = zlib.crc32(source.encode())
        chosen = {name: unseen[(start + k) % len(unseen)] for k, name in enumerate(names)}
        out.append(tuple(NAME.sub(lambda m: chosen.get(m.group(), m.group()), text) for text in (source, target)))
    return out


def main(model: str, splits: str) -> None:
    translator = Translator.load(model, "cpu")
    valid, train = load_split(splits, "valid"), load_split(splits, "train")
    words = translator.tokenizer.words or CorpusWords.of(train["src"], train["tgt"])
    pairs = list(zip(valid["src"], valid["tgt"]))
    for name, chosen in (("as written", pairs), ("names replaced", renamed_pairs(pairs)),
                         ("other names", renamed_pairs(pairs, OTHERS))):
        grouped = references(pd.DataFrame(chosen, columns=["src", "tgt"]))
        sources, refs = list(grouped.index), [list(r) for r in grouped]
        for fixed in (None, words):
            translator.tokenizer = replace(translator.tokenizer, words=fixed)
            for beam in (1, 8):
                texts = [t.text for t in translator.translate(sources, SearchParams(beam_size=beam))]
                bleu = corpus_scores(texts, refs)["bleu"]
                names = "names as typed" if fixed else "names as output"
                print(f"valid {name:15s} {len(sources):5d} sources, {names}, beam {beam}: BLEU {bleu:6.2f}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
