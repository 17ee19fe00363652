"""Titled people through one model (docs/trust.md), greedy and beam 8:
- typed sentences naming a person by title and surname (`Mrs. Jones is my teacher.`): how many
  outputs give the French title before the surname (`Mme Jones`);
- BLEU of the valid pairs naming Tom, John or Mary on both sides, as written and with each given a
  title and a made-up surname alike on both sides, as the title augmentation makes them.

    python docs/titles.py models/seq2seq artifacts/splits
"""

import re
import sys

from calendar_words import valid_scores

from attention_lab.data.title_augmentation import titled, titled_people
from attention_lab.inference.translator import SearchParams, Translator

# Each English title, and the French ones a translation may give it.
FRENCH_TITLES = {"Mr.": "M\\.|Monsieur", "Mrs.": "Mme|Madame", "Ms.": "Mme|Madame", "Miss": "Mlle|Mademoiselle",
                 "Dr.": "[Dd]octeur|Dr"}
SURNAMES = ("Smith", "Brown", "Jones", "Garcia", "Wilson")
TEMPLATES = ("{} is here.", "{} will see you now.", "I met {} yesterday.", "Have you talked to {}?",
             "{} is my teacher.", "This is {}'s office.")
# A person in a valid reference, with the French title before it if any.
PERSON = re.compile(r"(?:(?:M\.|Mme|Mlle|docteur) )?\b[A-Z][a-z]+\b")


def typed() -> list[tuple[str, str]]:
    """(sentence, a pattern its translation should match) for each title, surname and template."""
    return [(template.format(f"{title} {surname}"), rf"\b(?:{french})\s+{surname}\b")
            for title, french in FRENCH_TITLES.items() for surname in SURNAMES for template in TEMPLATES]


def kept(source: str, text: str, reference: str) -> bool:
    """Whether `text` names each titled person of `reference` (title and name) as it does."""
    words = set(re.findall(r"\w+", source))
    return all(match.group() in text for match in PERSON.finditer(reference) if match.group().split()[-1] in words)


def main(model: str, splits: str) -> None:
    translator = Translator.load(model, "cpu")
    sentences = typed()
    for beam in (1, 8):
        texts = [t.text for t in translator.translate([s for s, _ in sentences], SearchParams(beam_size=beam))]
        ok = [bool(re.search(pattern, text)) for (_, pattern), text in zip(sentences, texts)]
        print(f"typed: {sum(ok)} of {len(ok)} give the title and surname, beam {beam}", flush=True)
        for title in FRENCH_TITLES:
            print(f"  {title:5s} {sum(o for (s, _), o in zip(sentences, ok) if title in s.split())}"
                  f" of {len(ok) // len(FRENCH_TITLES)}")
        if beam == 8:
            for (source, _), text, good in zip(sentences, texts, ok):
                if not good:
                    print(f"  NOT {source} -> {text}")
    valid_scores(translator, splits, titled_people, titled, "Tom, John or Mary", kept)


if __name__ == "__main__":
    main(*sys.argv[1:])
