"""Title augmentation: training pairs whose people are given a title and a made-up surname, the same
on both sides (`Tom is here.` / `Tom est là.` becomes `Mr. Kesul is here.` / `M. Kesul est là.`).

The corpus titles a person in 20 of its 167,130 lines, 11 of them `Mr. Jackson`, so a model garbles any
other: `Mr. Smith is here.` came out as `Le docteur.`, `Dr. Brown will see you now.` as `Achez-vous
l'instant maintenant.` and `Mrs. Jones is my teacher.` as `Marde juille est mon professeur.` Pairs with
titled people in their places teach the French titles and that the surname after one is copied.

The people are the corpus's own, Tom, John and Mary (13,224 of the 150,318 train pairs name one on both
sides, with neither a title nor a surname), so each keeps the grammatical gender the French side gives
it: a man becomes Mr. (`M.`) or Dr. (`le docteur`, `au docteur`, `du docteur`), a woman Mrs. or Ms.
(`Mme`) or Miss (`Mlle`). A person spoken to is addressed with the title spelled out (`Merci, Monsieur
Kesul.`, `Docteur Kesul, attendez.`). Made from text, before encoding, as the renamed pairs are.
"""

from __future__ import annotations

import re
from itertools import permutations

from attention_lab.data.drawn_pairs import Rng, augmentation, pick
from attention_lab.data.name_augmentation import new_name, shared_names

# (English, French, French spoken to) titles of each gender, drawn alike: the dotted forms are
# American, the undotted ones British. French spells a title out to address the person (`Merci,
# Monsieur Kesul.`), and a doctor takes no article then.
TITLES = {
    "male": (("Mr.", "M.", "Monsieur"), ("Mr", "M.", "Monsieur"), ("Dr.", "le docteur", "docteur"),
             ("Dr", "le docteur", "docteur")),
    "female": (("Mrs.", "Mme", "Madame"), ("Mrs", "Mme", "Madame"), ("Ms.", "Mme", "Madame"), ("Ms", "Mme", "Madame"),
               ("Miss", "Mlle", "Mademoiselle")),
}
PEOPLE = {"Tom": "male", "John": "male", "Mary": "female"}
# A man and a woman named side by side on both sides (`Tom and Mary` / `Tom et Mary`, 205 train pairs)
# become a couple of that surname, as the corpus never writes one: `Mr. and Mrs. Brown are here.` came
# back as `M.`
COUPLES = (("Mr. and Mrs.", "M. et Mme"), ("Mr and Mrs", "M. et Mme"))
# The corpus names Mary about a tenth as often as Tom and John, and mostly beside Tom: a pair naming her
# is drawn 8 times as often, which makes a third of the titles drawn women's.
WOMAN_WEIGHT = 8.0
# A name that already has a title, or a surname after it (`Mr. Jackson`, `Uncle Tom`, `Tom Jackson`).
TAKEN = (r"\b(?:Mr|Mrs|Ms|Miss|Dr|Doctor|Professor|Uncle|Aunt|M|Mme|Mlle|Monsieur|Madame|Mademoiselle|"
         r"[Dd]octeur|Professeur|[Oo]ncle|[Tt]ante)\.?\s+{name}\b|\b{name}\s+[A-Z][a-z]")
# French `à le` and `de le` contract: `au docteur`, `du docteur`.
CONTRACTED = {"à": "au", "de": "du"}
SENTENCE_START = re.compile(r"(?:^|[.!?…]\s+|[«\"“]\s*)$")


def titled_people(source: str, target: str) -> list[str]:
    """The people of `PEOPLE` that `source` and `target` both name with neither a title nor a surname,
    in source order, each once."""
    return [name for name in shared_names(source, target) if name in PEOPLE
            and not any(re.search(TAKEN.format(name=name), side) for side in (source, target))]


def weight(source: str, target: str) -> float:
    """How often a pair is drawn, relative to one naming men only."""
    return WOMAN_WEIGHT if any(PEOPLE[name] == "female" for name in titled_people(source, target)) else 1.0


def spoken_to(name: str, text: str) -> bool:
    """Whether `text` addresses `name`: the name opens it before a comma that neither another name nor
    a relative pronoun follows (`Tom, wait.`, not `Tom, Mary and I...` or `Tom, who...`), or closes it
    after a comma (`Thank you, Tom.`)."""
    return re.search(rf"^{name}\s*,(?!\s*(?:[A-Z][a-z]|(?:who|whom|whose|which|qui|que|dont)\b))"
                     rf"|,\s*{name}\s*[.!?…]*\s*$", text) is not None


def couple(source: str, target: str) -> tuple[str, str] | None:
    """The man and the woman of the pair's `titled_people` that each side names once, side by side and
    in the same order (`Tom and Mary` / `Tom et Mary`); else None."""
    people = titled_people(source, target)
    for first, second in permutations(people, 2):
        if (PEOPLE[first] != PEOPLE[second] and all(len(re.findall(rf"\b{name}\b", side)) == 1
                                                    for name in (first, second) for side in (source, target))
                and re.search(rf"\b{first} and {second}\b", source) and re.search(rf"\b{first} et {second}\b", target)):
            return first, second
    return None


def titled(source: str, target: str, rng: Rng) -> tuple[str, str, dict[str, str]]:
    """The pair with each of its `titled_people` replaced by a title of their gender and a made-up
    surname (never a word of the pair), alike on both sides, a `couple` by the two titles and one
    surname (`COUPLES`); and the replacements made (name -> English title(s) and surname)."""
    taken = set(re.findall(r"\w+", f"{source} {target}"))
    english: dict[str, str] = {}
    french: dict[str, tuple[str, str, str]] = {}
    together = couple(source, target)
    if together:
        titles, in_french = pick(rng, COUPLES)
        named = new_name(rng, taken)
        source = re.sub(rf"\b{together[0]} and {together[1]}\b", f"{titles} {named}", source)
        target = re.sub(rf"\b{together[0]} et {together[1]}\b", f"{in_french} {named}", target)
        english = dict.fromkeys(together, f"{titles} {named}")
    for name in titled_people(source, target):
        title, in_french, addressed = pick(rng, TITLES[PEOPLE[name]])
        named = new_name(rng, taken)
        english[name] = f"{title} {named}"
        french[name] = (in_french, addressed if spoken_to(name, source) and spoken_to(name, target) else in_french,
                        named)

    def replace(match: re.Match[str]) -> str:
        before, (title, alone, named) = match.group(1), french[match.group(2)]
        if before and title.startswith("le "):  # `à le docteur` is `au docteur`
            contracted = CONTRACTED[before.lower()]
            return f"{contracted.capitalize() if before[0].isupper() else contracted} {title[3:]} {named}"
        if before:  # `à M. Kesul`, `de Mme Kesul`: not spoken to
            return f"{before} {title} {named}"
        title = alone
        if SENTENCE_START.search(match.string[:match.start()]):
            title = title[0].upper() + title[1:]
        return f"{title} {named}"

    people = "|".join(french)
    if people:
        source = re.sub(rf"\b({people})\b", lambda match: english[match.group(1)], source)
        target = re.sub(rf"(?:\b(à|À|de|De) )?\b({people})\b", replace, target)
    return source, target, english


title_pairs = augmentation(47, applies=titled_people, rewrite=titled, weight=weight)
