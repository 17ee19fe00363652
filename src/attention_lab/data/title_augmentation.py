"""Title augmentation: training pairs whose people are given a title and a made-up surname, the same
on both sides (`Tom is here.` / `Tom est là.` becomes `Mrs. Kesul is here.` / `Mme Kesul est là.`).

The corpus titles a person in 20 of its 167,130 lines, 11 of them `Mr. Jackson`, so a model garbles any
other: `Mr. Smith is here.` came out as `Le docteur.`, `Dr. Brown will see you now.` as `Achez-vous
l'instant maintenant.` and `Mrs. Jones is my teacher.` as `Marde juille est mon professeur.` Pairs with
titled people in their places teach the French titles and that the surname after one is copied.

The people are the corpus's own (Tom, John, Mary: 16,000 train pairs share one between their sides),
so each keeps the grammatical gender the French side gives it: a man becomes Mr. (`M.`) or Dr. (`le
docteur`, `au docteur`, `du docteur`), a woman Mrs. or Ms. (`Mme`) or Miss (`Mlle`). A person spoken
to (a comma beside the name: `Thank you, Tom.`) is never made a doctor, whom French addresses without
the article. Made from text, before encoding, as the renamed pairs are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from attention_lab.data.drawn_pairs import TextPair, drawn_pairs
from attention_lab.data.name_augmentation import made_up_name, shared_names

TITLES_STREAM = 47  # with the seed, this augmentation's random stream
DOCTOR = "docteur"
# (English, French) titles, each listed as often as it is to be drawn: the dotted forms are the most
# typed (American), the undotted ones British.
TITLES = {
    "male": (("Mr.", "M."), ("Mr.", "M."), ("Mr", "M."), ("Dr.", DOCTOR), ("Dr", DOCTOR)),
    "female": (("Mrs.", "Mme"), ("Mrs", "Mme"), ("Ms.", "Mme"), ("Ms", "Mme"), ("Miss", "Mlle")),
}
PEOPLE = {"Tom": "male", "John": "male", "Mary": "female"}
# The corpus names Mary about a tenth as often as Tom and John: a pair naming her is drawn 8 times as
# often, so that women's titles are drawn about as often as men's.
WOMAN_WEIGHT = 8.0
# French `à le` and `de le` contract: `au docteur`, `du docteur`.
ARTICLE = {None: "le", "à": "au", "de": "du"}


def titled_people(source: str, target: str) -> list[str]:
    """The people of `PEOPLE` that `source` and `target` both name, in source order, each once."""
    return [name for name in shared_names(source, target) if name in PEOPLE]


def weight(source: str, target: str) -> float:
    """How often a pair is drawn, relative to one naming men only."""
    return WOMAN_WEIGHT if any(PEOPLE[name] == "female" for name in titled_people(source, target)) else 1.0


def spoken_to(name: str, source: str) -> bool:
    """Whether `source` has a comma beside `name` (`Tom, wait.`, `Thank you, Tom.`)."""
    return re.search(rf",\s*\b{name}\b|\b{name}\b\s*,", source) is not None


def titled(source: str, target: str, rng: np.random.Generator) -> tuple[str, str, dict[str, str]]:
    """The pair with each of its `titled_people` replaced by a title and a made-up surname (never a
    word of the pair), alike on both sides; and the replacements made (name -> English title and
    surname)."""
    words = set(re.findall(r"\w+", f"{source} {target}"))
    english: dict[str, str] = {}
    french: dict[str, tuple[str, str]] = {}
    for name in titled_people(source, target):
        titles = [title for title in TITLES[PEOPLE[name]]
                  if title[1] != DOCTOR or not spoken_to(name, source)]
        title, french_title = titles[int(rng.integers(len(titles)))]
        surname = made_up_name(rng)
        while surname in words or surname in {new.split()[-1] for new in english.values()}:
            surname = made_up_name(rng)
        english[name], french[name] = f"{title} {surname}", (french_title, surname)

    def in_french(match: re.Match[str]) -> str:
        before, name = match.group(1), match.group(2)
        title, surname = french[name]
        if title != DOCTOR:
            return f"{match.group(0)[:match.start(2) - match.start()]}{title} {surname}"
        article = ARTICLE[before.lower() if before else None]
        if match.start() == 0 or (before and before[0].isupper()):
            article = article.capitalize()
        return f"{article} {title} {surname}"

    people = "|".join(english)
    if not people:
        return source, target, {}
    return (re.sub(rf"\b({people})\b", lambda match: english[match.group(1)], source),
            re.sub(rf"(?:\b(à|À|de|De) )?\b({people})\b", in_french, target), english)


def title_pairs(pairs: Sequence[TextPair], fraction: float, seed: int) -> list[TextPair]:
    """`round(fraction × len(pairs))` new pairs, each a pair drawn at random (with replacement) among
    those naming one of `PEOPLE` on both sides (in proportion to `weight`), titled; seeded by `seed`.
    None when no pair names one."""
    return drawn_pairs(pairs, fraction, seed, TITLES_STREAM, titled_people, titled, weight)
