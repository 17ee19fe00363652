"""Title augmentation: training pairs whose people are given a title and a made-up surname, the same on both
sides (`Tom is here.` / `Tom est là.` becomes `Mr. Kesul is here.` / `M. Kesul est là.`): the corpus titles a
person 20 times. The people are the corpus's own (Tom, John and Mary), so each keeps the gender the French side
gives them (design.md: Titled people).
"""

from __future__ import annotations

import re
from itertools import permutations

from attention_lab.data.drawn_pairs import Rng, augmentation, pick
from attention_lab.data.name_augmentation import new_name, shared_names

# (English, French, French spoken to) titles of each gender, drawn alike, dotted (American) or not (British):
# French spells a title out to address the person (`Merci, Monsieur Kesul.`), a doctor's without the article.
TITLES = {"male": (("Mr.", "M.", "Monsieur"), ("Mr", "M.", "Monsieur"), ("Dr.", "le docteur", "docteur"),
                   ("Dr", "le docteur", "docteur")),
          "female": (("Mrs.", "Mme", "Madame"), ("Mrs", "Mme", "Madame"), ("Ms.", "Mme", "Madame"),
                     ("Ms", "Mme", "Madame"), ("Miss", "Mlle", "Mademoiselle"))}
PEOPLE = {"Tom": "male", "John": "male", "Mary": "female"}
# A man and a woman named side by side on both sides (`Tom and Mary` / `Tom et Mary`, 205 train pairs) become
# a couple of that surname, as the corpus never writes one: `Mr. and Mrs. Brown are here.` came back as `M.`
COUPLES = (("Mr. and Mrs.", "M. et Mme"), ("Mr and Mrs", "M. et Mme"))
# The corpus names Mary about a tenth as often as Tom and John, and mostly beside Tom: a pair naming her
# is drawn 8 times as often, which makes a third of the titles drawn women's.
WOMAN_WEIGHT = 8.0
# A name that already has a title, or a surname after it (`Mr. Jackson`, `Uncle Tom`, `Tom Jackson`).
TAKEN = (r"\b(?:Mr|Mrs|Ms|Miss|Dr|Doctor|Professor|Uncle|Aunt|M|Mme|Mlle|Monsieur|Madame|Mademoiselle|"
         r"[Dd]octeur|Professeur|[Oo]ncle|[Tt]ante)\.?\s+{name}\b|\b{name}\s+[A-Z][a-z]")
CONTRACTED = {"à": "au", "À": "Au", "de": "du", "De": "Du"}  # French `à le` and `de le` contract: `au docteur`
SENTENCE_START = re.compile(r"(?:^|[.!?…]\s+|[«\"“]\s*)$")


def titled_people(source: str, target: str) -> list[str]:
    """The `PEOPLE` both sides name with neither a title nor a surname (`TAKEN`), in source order, each once."""
    return [name for name in shared_names(source, target) if name in PEOPLE
            and not any(re.search(TAKEN.format(name=name), side) for side in (source, target))]


def weight(source: str, target: str) -> float:
    """How often a pair is drawn, relative to one naming men only."""
    return WOMAN_WEIGHT if any(PEOPLE[name] == "female" for name in titled_people(source, target)) else 1.0


def spoken_to(name: str, text: str) -> bool:
    """Whether `text` addresses `name`: opens with it before a comma that no name or relative pronoun follows
    (`Tom, wait.`, not `Tom, Mary and I...` or `Tom, who...`), or closes with it after a comma (`Thank you, Tom.`)."""
    return re.search(rf"^{name}\s*,(?!\s*(?:[A-Z][a-z]|(?:who|whom|whose|which|qui|que|dont)\b))"
                     rf"|,\s*{name}\s*[.!?…]*\s*$", text) is not None


def couple(source: str, target: str) -> tuple[str, str] | None:
    """The man and the woman of the pair's `titled_people` that each side names once, side by side and
    in the same order (`Tom and Mary` / `Tom et Mary`); else None."""
    for first, second in permutations(titled_people(source, target), 2):
        once = all(len(re.findall(rf"\b{name}\b", side)) == 1 for name in (first, second) for side in (source, target))
        if (PEOPLE[first] != PEOPLE[second] and once and re.search(rf"\b{first} and {second}\b", source)
                and re.search(rf"\b{first} et {second}\b", target)):
            return first, second
    return None


def titled(source: str, target: str, rng: Rng) -> tuple[str, str, dict[str, str]]:
    """The pair with each of its `titled_people` given alike a title of their gender and a made-up surname (never
    a word of the pair), a `couple` both titles and one surname; and the replacements (name -> title and surname)."""
    taken = set(re.findall(r"\w+", f"{source} {target}"))
    english: dict[str, str] = {}
    french: dict[str, tuple[str, str]] = {}  # name -> (after `à` or `de`, alone)
    if together := couple(source, target):
        (titles, in_french), named = pick(rng, COUPLES), new_name(rng, taken)
        english = dict.fromkeys(together, f"{titles} {named}")
        source = re.sub(rf"\b{together[0]} and {together[1]}\b", english[together[0]], source)
        target = re.sub(rf"\b{together[0]} et {together[1]}\b", f"{in_french} {named}", target)
    for name in titled_people(source, target):
        title, in_french, addressed = pick(rng, TITLES[PEOPLE[name]])
        named = new_name(rng, taken)
        english[name] = f"{title} {named}"
        alone = addressed if spoken_to(name, source) and spoken_to(name, target) else in_french
        french[name] = (f"{in_french} {named}", f"{alone} {named}")

    def replace(match: re.Match[str]) -> str:
        before, (title, alone) = match[1], french[match[2]]
        if before and title.startswith("le "):  # `à le docteur` is `au docteur`
            return f"{CONTRACTED[before]} {title[3:]}"
        if before:  # `à M. Kesul`, `de Mme Kesul`: not spoken to
            return f"{before} {title}"
        return alone[0].upper() + alone[1:] if SENTENCE_START.search(match.string[: match.start()]) else alone

    if french:
        people = "|".join(french)
        source = re.sub(rf"\b({people})\b", lambda match: english[match[1]], source)
        target = re.sub(rf"(?:\b(à|À|de|De) )?\b({people})\b", replace, target)
    return source, target, english


title_pairs = augmentation(47, applies=titled_people, rewrite=titled, weight=weight)
