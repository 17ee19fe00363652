"""Contractions typed without their apostrophe (docs/trust.md): the valid sources with a contraction the
translator reads back (`don't`, `I'm`, not `we're`, whose `were` is a word), typed with every apostrophe
dropped, as a person who skips them types, translated by one model with the reading and without, and as
written; BLEU as `evaluate` scores it. Then a few typed lines, beam 8.

    python docs/apostrophes.py models/seq2seq artifacts/splits
"""

import sys

from attention_lab.data.splits import load_split, references
from attention_lab.evaluation.bleu import corpus_scores
from attention_lab.inference import reading
from attention_lab.inference.contractions import WORD
from attention_lab.inference.translator import SearchParams, Translator
from typed_lines import table  # docs/typed_lines.py

TYPED = ("i cant swim", "I dont know.", "Im tired.", "He doesnt like it.", "Youre late!", "Thats not fair.",
         "We havent eaten yet.", "She isnt here.", "I wont tell anyone.", "Tom didnt come.", "Whats your name?",
         "They werent home.", "It wasnt me.", "I couldnt sleep.", "Ive lost my key.")


def main(model: str, splits: str) -> None:
    translator = Translator.load(model, "cpu")
    refs = references(load_split(splits, "valid"))
    sources = [s for s in refs.index if WORD.search(s.replace("'", "").replace("’", ""))]
    print(f"valid sources with a contraction read back: {len(sources)} of {len(refs)}")
    refs_of = [list(refs[s]) for s in sources]
    with_reading, as_typed = reading.with_apostrophes, lambda sentence, *recased: sentence
    for name, typed, read in (("as written", sources, with_reading),
                              ("apostrophes dropped, read back", [s.replace("'", "") for s in sources], with_reading),
                              ("apostrophes dropped, as typed", [s.replace("'", "") for s in sources], as_typed)):
        reading.with_apostrophes = read
        scores = {beam: corpus_scores([t.text for t in translator.translate(typed, SearchParams(beam_size=beam))],
                                      refs_of)["bleu"] for beam in (8, 1)}
        print(f"{name:32s} BLEU beam 8 {scores[8]:6.2f}, greedy {scores[1]:6.2f}", flush=True)
    reading.with_apostrophes = as_typed
    before = translator.translate(TYPED)
    reading.with_apostrophes = with_reading
    after = translator.translate(TYPED)
    print(table(list(TYPED), [t.text for t in before], [t.text for t in after],
                ("without the reading", "with it")))


if __name__ == "__main__":
    main(*sys.argv[1:])
