"""Titled people through one model (docs/trust.md), greedy and beam 8:
- typed sentences naming a person by title and surname (`Mrs. Jones is my teacher.`): how many
  outputs give the French title before the surname (`Mme Jones`);
- BLEU of the valid pairs naming Tom, John or Mary on both sides, as written and with each given a
  title and a made-up surname alike on both sides, as the title augmentation makes them.

    python docs/scripts/titles.py models/seq2seq artifacts/splits

Run from the repository root: it imports from docs/scripts/calendar_words.py beside it.
"""

import re
import sys

from calendar_words import typed_matches, valid_scores

from attention_lab.data.title_augmentation import titled, titled_people
from attention_lab.inference.translator import Translator

# Each French title, and the forms a translation may give it.
FRENCH_FORMS = {"M.": r"M\.|Monsieur", "Mme": "Mme|Madame", "Mlle": "Mlle|Mademoiselle", "docteur": "[Dd]octeur|Dr"}
FRENCH_TITLES = {"Mr.": "M.", "Mrs.": "Mme", "Ms.": "Mme", "Miss": "Mlle", "Dr.": "docteur"}
SURNAMES = ("Smith", "Brown", "Jones", "Garcia", "Wilson")
TEMPLATES = ("{} is here.", "{} will see you now.", "I met {} yesterday.", "Have you talked to {}?",
             "{} is my teacher.", "This is {}'s office.")
# A person in a reference, with the title before them if any.
PERSON = re.compile(r"(?:(M\.|Mme|Mlle|[Dd]octeur|Monsieur|Madame|Mademoiselle) )?\b([A-Z][a-z]+)\b")
SPELLED = {"Monsieur": "M.", "Madame": "Mme", "Mademoiselle": "Mlle", "Docteur": "docteur"}


def named(title: str | None, name: str) -> str:
    """A pattern for `name` after any form of the French `title` (none: the name alone)."""
    before = rf"(?:{FRENCH_FORMS[SPELLED.get(title, title)]})\s+" if title else ""
    return rf"(?<!\w){before}{name}\b"


def typed() -> list[tuple[str, str]]:
    """(sentence, a pattern its translation should match) for each title, surname and template."""
    return [(template.format(f"{title} {surname}"), named(french, surname))
            for title, french in FRENCH_TITLES.items() for surname in SURNAMES for template in TEMPLATES]


def kept(source: str, text: str, reference: str) -> bool:
    """Whether `text` names each person of `reference` that `source` names (a capitalised word of both:
    `Mary`, `Boston`, a made-up surname) as the reference does, after any form of its French title."""
    words = set(re.findall(r"\w+", source))
    return all(re.search(named(*match.groups()), text) for match in PERSON.finditer(reference)
               if match.group(2) in words)


def main(model: str, splits: str) -> None:
    translator = Translator.load(model, "cpu")
    sentences = typed()
    for beam in (1, 8):
        ok = typed_matches(translator, sentences, beam, show_misses=beam == 8)
        print(f"typed: {sum(ok)} of {len(ok)} give the title and surname, beam {beam}", flush=True)
        for title in FRENCH_TITLES:
            print(f"  {title:5s} {sum(good for (s, _), good in zip(sentences, ok) if title in s.split())}"
                  f" of {len(ok) // len(FRENCH_TITLES)}")
    valid_scores(translator, splits, titled_people, titled, "naming Tom, John or Mary", kept)


if __name__ == "__main__":
    main(*sys.argv[1:])
