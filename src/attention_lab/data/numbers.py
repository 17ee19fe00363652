"""Numbers in a translation: the digit groups of a text, and those of a source an output lacks.

A digit group is a maximal run of ASCII digits. Comparing groups, not whole numbers, reads the forms
French writes numbers in alike: `10:30` and `10 h 30` are both `10` and `30`, `3.50` and `3,50` both `3`
and `50`, `1,000` and `1 000` both `1` and `000`. A group is never a part of another: `12` is not in `122`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

DIGIT_GROUP = re.compile(r"[0-9]+")
TYPED_NUMBER = r"[0-9](?:[0-9,.]*[0-9])?"  # a number as typed, separators and all: `5`, `1,299.99`
THOUSANDS = re.compile(r"(?<![\w.,])[0-9]{1,3}(?:,[0-9]{3})+(?![0-9]|[.,][0-9])")  # `2,500,000`, not `1,299.99`


def number_groups(text: str) -> list[str]:
    """The digit groups of `text` as its translation writes them, in order, repeats and all: a whole
    number with commas between thousands is one (`2,500,000`: `2500000`), which French then spaces
    (`2 500 000`, text/number_forms.py). Written group by group it came back as `2 octobre 000e`."""
    return DIGIT_GROUP.findall(THOUSANDS.sub(lambda match: match.group().replace(",", ""), text))


def digit_groups(text: str) -> list[str]:
    """The digit groups of `text`, in order, each once."""
    return list(dict.fromkeys(DIGIT_GROUP.findall(text)))


def missing_numbers(source: str, output: str) -> list[str]:
    """The digit groups of `source` that `output` does not write in digits, in source order: what a
    reader should check (a number lost, changed, or written out in words)."""
    kept = set(digit_groups(output))
    return [group for group in digit_groups(source) if group not in kept]


def keeps_numbers(source: str, output: str, references: Sequence[str]) -> bool:
    """Whether `output` writes every digit group of `source` that some reference writes in digits
    (a group the references spell out in words is not asked for)."""
    written = {group for reference in references for group in digit_groups(reference)}
    return not [group for group in missing_numbers(source, output) if group in written]


def number_fidelity(sources: Sequence[str], outputs: Sequence[str], references: Sequence[Sequence[str]]) -> dict:
    """Over the sources with digits: their count (`number_sources`) and the share whose output
    `keeps_numbers` (`number_fidelity`, None without such a source)."""
    with_digits = [i for i, source in enumerate(sources) if DIGIT_GROUP.search(source)]
    kept = sum(keeps_numbers(sources[i], outputs[i], references[i]) for i in with_digits)
    return {"number_sources": len(with_digits),
            "number_fidelity": round(kept / len(with_digits), 4) if with_digits else None}
