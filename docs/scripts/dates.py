"""Dates and couples through one model (docs/trust.md), greedy and beam 8:
- typed sentences dating a day each way English writes a date (`May 5`, `May 5th`, `the 5th of May`,
  `5 May`, `5th May`): how many outputs write the date as French does (`5 mai`, `1er mai`);
- typed sentences naming a couple (`Mr. and Mrs. Brown are here.`): how many give `M. et Mme Brown`;
- BLEU of the valid pairs dating a day, or naming a month, on both sides, as written and redated as the
  date augmentation makes them.

    python docs/scripts/dates.py models/seq2seq artifacts/splits

Run from the repository root: it imports from docs/scripts/calendar_words.py beside it.
"""

import re
import sys

import numpy as np
from calendar_words import typed_matches, valid_scores

from attention_lab.data.calendar_names import MONTHS
from attention_lab.data.date_augmentation import ANY_MONTH, FORMS, FRENCH_DATE, dated, ordinal, redated
from attention_lab.inference.translator import Translator

# Half of them date a day without `on` before it.
TEMPLATES = ("My birthday is on {}.", "I'll come on {}.", "The meeting is on {}.", "We left on {}.",
             "Can you come on {}?", "His birthday is {}.", "The deadline is {}.", "Tom was born {}.",
             "We will wait until {}.", "Send it to me by {}.")
SURNAMES = ("Smith", "Brown", "Jones", "Garcia", "Wilson")
COUPLE_TEMPLATES = ("Mr. and Mrs. {} are here.", "I met Mr. and Mrs. {} yesterday.", "Mr and Mrs {} have two children.",
                    "This is Mr. and Mrs. {}'s house.")


def typed_dates() -> list[tuple[str, str, str]]:
    """(form, sentence, the French date its translation should write): each form, template and month,
    on a day drawn for the template and month."""
    rng = np.random.default_rng(0)
    days = {(template, month): int(rng.integers(1, 29)) for template in TEMPLATES for month, _ in MONTHS}
    return [(form, template.format(form.format(month=english, day=day, ordinal=ordinal(day))),
             rf"\b{'1er' if day == 1 else day} {french}\b")
            for form in FORMS for template in TEMPLATES for english, french in MONTHS
            for day in [days[template, english]]]


def date_kept(source: str, text: str, reference: str) -> bool:
    """Whether `text` writes the dates (`20 octobre`) and months (`en mai`) of the reference as it does."""
    return all(re.search(rf"\b{re.escape(match.group())}\b", text, re.IGNORECASE)
               for pattern in (FRENCH_DATE, ANY_MONTH) for match in pattern.finditer(reference))


def main(model: str, splits: str) -> None:
    translator = Translator.load(model, "cpu")
    dates = typed_dates()
    couples = [(template.format(surname), rf"\bM\. et Mme {surname}\b")
               for template in COUPLE_TEMPLATES for surname in SURNAMES]
    for beam in (1, 8):
        ok = typed_matches(translator, [(s, pattern) for _, s, pattern in dates], beam, show_misses=beam == 8)
        by_form = ", ".join(f"{form.format(month='M', day='D', ordinal='th')}: "
                            f"{sum(good for (f, _, _), good in zip(dates, ok) if f == form)}" for form in FORMS)
        print(f"typed dates: {sum(ok)} of {len(ok)} written as French does, beam {beam} ({by_form})", flush=True)
        ok = typed_matches(translator, couples, beam, show_misses=beam == 8)
        print(f"typed couples: {sum(ok)} of {len(ok)} give `M. et Mme` and the surname, beam {beam}", flush=True)
    valid_scores(translator, splits, dated, redated, "dating a day or naming a month", date_kept)


if __name__ == "__main__":
    main(*sys.argv[1:])
