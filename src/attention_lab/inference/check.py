"""The check after writing: where a translation may have lost or changed its source's meaning, line by line
(measured in docs/trust.md: The check after writing). It names, for a reader to check:

- `missing_numbers`: a number of the source, in digits or in English words (`two`; not `one`, `both`), whose value
  the French does not write, in digits or in words (`100,000` is written `100 000`, `9.99` is `9,99`, `2` may be
  `deux`, `$1.2M` `1,2 million`, `9¾` `9,75`), or digit groups typed apart that it does not write in one run
  (`020 7946 0958`): inference/number_values.py; a word of order or of a part stated in no form (`first use`
  with neither `première` nor `1re`, `by a fifth`): inference/check_loose.py;
- `added_numbers`: a number the French writes, in digits or words (`vingt`, `onze heures`), that the source lacks;
- `missing_names`: a name the French does not write, as typed or in a French form (`Japon`, `ONU`, `OMS`): one read
  as a placeholder (text/names.py), a code (`Q3`, `B12`), a word in capitals or capitalised that the corpus lacks or
  writes as a name on both sides (`NASA`, `Seville`, `Boston`), a word it writes small that the line marks as a name
  (`Tell Bill`, `Golden Dragon`), an acronym that is a word after an article (`the UN`), a place or a word no
  dictionary has in a line typed in small letters or capitals (`dublin`, `tesco`, `GATWICK`), a letter that labels a
  thing (`panel C`); a given name or a capitalised word of a name written in no form, neither as typed nor as a
  word the corpus renders it by (`happy bday dawn`, with neither `Dawn` nor `aube`; `Goodison Park` with neither
  `Park` nor `parc`): inference/check_names.py, check_forms.py, check_loose.py;
- `missing_carried`: text carried around the model (text/symbols.py) that the French lacks, or does not write
  against the digits or capitals it was typed against (`Blue#2025` needs `#2025`, `B&B` and `572♥` themselves); an
  `&` or `+` between capitalised words, a name's or keys' (`Harwood & Finch`, not `et`; `Ctrl + Shift + T`);
- `missing_terms`: a glossary's term the French does not write (text/glossary.py);
- `placeholders`: a placeholder left in the French, alone or glued to letters (text/protect.py);
- `missing_units`: an amount whose unit or currency, typed beside its number, the French does not name (`2.4 kg`
  written `2,4`, `£12` written `12 dollars`): inference/check_units.py.

The translator runs it on each line (`Translation.found`); `attention-lab translate` notes what it finds on stderr
and writes it all with `--report`, and the served model returns it in its `checks` column.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields

from attention_lab.data.corpus_words import CorpusWords
from attention_lab.inference.check_forms import missing_names
from attention_lab.inference.check_loose import loosely_asked, missing_orders, order_values
from attention_lab.inference.check_names import asked_names
from attention_lab.inference.check_units import missing_units
from attention_lab.inference.number_values import asked, kept, numbers, runs, values
from attention_lab.text.glossary import missing_terms
from attention_lab.text.protect import Protect, leaked
from attention_lab.text.terms import terms_of


@dataclass(frozen=True)
class Expected:
    """What a translation must write beyond its source's numbers: the spans the text steps kept for it."""

    names: tuple[str, ...] = ()  # names read as placeholders, to be written as typed
    carried: tuple[str, ...] = ()  # text carried around the model
    terms: tuple[str, ...] = ()  # a glossary's French terms
    placeholders: tuple[str, ...] = ()  # the placeholders that held the names

    @classmethod
    def of(cls, sentence, carried: Sequence[str]) -> Expected:
        """What the French of `sentence` (text/record.Sentence, read by every step) must write, with the runs
        `carried` around the model."""
        pairs = sentence.record[Protect.name][1]
        return cls(tuple(name for _, name in pairs), tuple(carried), tuple(terms_of(sentence)),
                   tuple(placeholder for placeholder, _ in pairs))

    @classmethod
    def joined(cls, parts: Iterable[Expected]) -> Expected:
        """The expectations of a line's sentences as the line's, each span once."""
        parts = list(parts)
        return cls(*(tuple(dict.fromkeys(span for part in parts for span in getattr(part, f.name)))
                     for f in fields(cls)))


@dataclass(frozen=True)
class Findings:
    """What the check found in one line's translation, by kind, each a tuple of spans as written."""

    missing_numbers: tuple[str, ...] = ()
    added_numbers: tuple[str, ...] = ()
    missing_names: tuple[str, ...] = ()
    missing_carried: tuple[str, ...] = ()
    missing_terms: tuple[str, ...] = ()
    placeholders: tuple[str, ...] = ()
    missing_units: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    def as_dict(self) -> dict[str, list[str]]:
        """Every kind and its spans (an empty list when none): a stable JSON object."""
        return {name: list(spans) for name, spans in asdict(self).items()}

    def notes(self) -> list[str]:
        """A line of text for each kind that found something: what it is, and its spans."""
        return [f"{WHAT[name]}, check it: {(' ' if 'numbers' in name else ' | ').join(spans)}"
                for name, spans in asdict(self).items() if spans]


WHAT = {"missing_numbers": "numbers of the source not in the translation",
        "added_numbers": "numbers in the translation that the source lacks",
        "missing_names": "names of the source not in the translation",
        "missing_carried": "text to keep as typed not in the translation",
        "missing_terms": "glossary terms not in the translation",
        "placeholders": "placeholders left in the translation",
        "missing_units": "units of the source not in the translation"}


def check(source: str, output: str, expected: Expected = Expected(), words: CorpusWords | None = None) -> Findings:
    """What `output`, the French of the English line `source`, may have lost or changed (`Findings`), given
    what the text steps `expected` of it and the corpus's `words` (names, and French words that begin like a
    placeholder: `Tomate`)."""
    english, french = numbers(source, "en"), numbers(output, "fr")
    written, allowed, written_runs = values(french), values(english) | order_values(source), runs(output)
    wholes = [n.whole for n in english if n.whole]  # digit groups typed apart: a French run of them adds none (`06.12`)
    french_words = words.target if words else frozenset()
    carried = [span for run in expected.carried for span in _carried_spans(source, run)]
    carried += [match["sign"] for match in _NAMED_SIGN.finditer(source)]
    return Findings(
        missing_numbers=tuple(n.typed for n in english if asked(n) and not kept(n, written, written_runs))
        + missing_orders(source, output, written, words),
        added_numbers=tuple(n.typed for n in french if not kept(n, allowed)
                            and not any(re.sub(r"\D", "", n.typed) in whole for whole in wholes)),
        missing_names=missing_names(source, output, [*expected.names, *asked_names(source, words)], words,
                                    loosely_asked(source, words)),
        missing_carried=tuple(dict.fromkeys(span for span in carried if span not in output)),
        missing_terms=tuple(missing_terms(output, expected.terms)),
        placeholders=tuple(match.group() for placeholder in expected.placeholders
                           for match in leaked(output, placeholder, french_words, source)),
        missing_units=missing_units(source, output))


# `Harwood & Finch`, `FISH & CHIPS`, `Ctrl + Shift`: a name's or keys' own sign. Tried at a word's start only: from
# inside a long word of capitals each try ran to its end.
_NAMED_SIGN = re.compile(r"(?<![\w'’])[A-Z][\w'’]* (?P<sign>[&+]) [A-Z]")


_GLUED = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")  # written as typed: a carried run typed against it comes
# back against it


def _carried_spans(source: str, run: str) -> list[str]:
    """What a French translation must write for `run`, carried around the model from `source`: the run with the digits
    and capitals it was typed against (`#2025` of `Blue#2025`, `B&B`), or the run alone. Each character is read at
    most twice: a pattern with `[0-9A-Z]*` before the run took n² steps on a line of capitals."""
    spans, end = [], 0
    for match in re.finditer(re.escape(run), source):
        start, stop = match.start(), match.end()
        while start > end and source[start - 1] in _GLUED:
            start -= 1
        while stop < len(source) and source[stop] in _GLUED:
            stop += 1
        spans.append(source[start:stop])
        end = stop
    return [span for span in spans if span != run] or [run]
