"""A reporting clause after a quote written verb first, as French writes it: `« Viens ici », dit-elle.`,
`« Où est-ce ? » demanda-t-elle.` The corpus's French writes the verb first after a quote (`dit-il`); the
model wrote the clause as a sentence of its own (`elle a dit`).

A clause right after a quote's end that begins with a pronoun or a name, the perfect's `a`/`ont` and a past
participle is inverted: a verb of speech in the simple past (`dit-il`, `demanda Tom`), another participle in
`-é` as the perfect inverted (`a-t-il chuchoté`). Not a clause that opens a quote of its own, nor one after
a quote that words of the sentence come before (`J'ai dit « oui », il a accepté.`); after a quote that ends
its sentence, only a clause of speech alone (`« Où ? » demanda Tom.`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# A verb of speech's past participle -> its simple past, third person singular and plural.
SIMPLE_PAST = {
    "dit": ("dit", "dirent"), "demandé": ("demanda", "demandèrent"), "répondu": ("répondit", "répondirent"),
    "crié": ("cria", "crièrent"), "ajouté": ("ajouta", "ajoutèrent"), "murmuré": ("murmura", "murmurèrent"),
    "répété": ("répéta", "répétèrent"), "expliqué": ("expliqua", "expliquèrent"), "hurlé": ("hurla", "hurlèrent"),
    "pensé": ("pensa", "pensèrent"), "déclaré": ("déclara", "déclarèrent"), "annoncé": ("annonça", "annoncèrent"),
}
CLAUSE = re.compile(r"\b(?P<subject>[Ii]l|[Ee]lle|[Ii]ls|[Ee]lles|[Oo]n) (?P<aux>a|ont) (?P<participle>\w+)\b")
NAMED = re.compile(r"(?P<name>[^\W\d_]+(?:-[^\W\d_]+)?) a (?P<participle>\w+)\b")
NOT_NAMES = frozenset({"il", "elle", "on", "cela", "ceci", "ça", "personne", "tout", "rien", "chacun"})
_END = re.compile(r"\s*[.!?…]*\s*")  # what may follow a clause that is a sentence of its own


def verb_first(clause: str, alone: bool = False) -> str:
    """`clause`, a reporting clause's translation, with a pronoun subject after the verb (`il a dit` ->
    `dit-il`), a name after a verb of speech (`Tom a dit` -> `dit Tom`); as written where it does not
    begin with one, the perfect's auxiliary and a participle. `alone`: a sentence of its own, written
    verb first only when it is a clause of speech and nothing more (`Tom a demandé.`)."""
    named = NAMED.match(clause)
    if named and named["name"].istitle() and named["name"].lower() not in NOT_NAMES and \
            named["participle"] in SIMPLE_PAST and _may_follow(clause[named.end() :], alone):
        return f"{SIMPLE_PAST[named['participle']][0]} {named['name']}{clause[named.end() :]}"
    match = CLAUSE.match(clause)
    if match is None or (match["aux"] == "ont") != match["subject"].lower().endswith("s"):
        return clause
    if match["participle"] not in SIMPLE_PAST and (alone or not match["participle"].endswith("é")):
        return clause  # `elle a des chats`: no perfect, no clause of speech
    if not _may_follow(clause[match.end() :], alone):
        return clause
    subject, plural = match["subject"].lower(), match["aux"] == "ont"
    if match["participle"] in SIMPLE_PAST:
        verb = SIMPLE_PAST[match["participle"]][plural]
        inverted = f"{verb}{'-t-' if verb.endswith(('a', 'e')) else '-'}{subject}"
    else:
        inverted = f"{match['aux']}{'-' if plural else '-t-'}{subject} {match['participle']}"
    return inverted + clause[match.end() :]


def _may_follow(rest: str, alone: bool) -> bool:
    # `elle a dit « oui »` opens a quote (one between two has a comma: `« Un », dit-il, « deux »`)
    return _END.fullmatch(rest) is not None if alone else not rest.lstrip(" :").startswith("«")


_ENDS_SENTENCE = "[!?…] »"  # a quote that ends its sentence (a full stop inside ends the clause too)
_AFTER_QUOTE = re.compile(rf"(?<=», )|(?<={_ENDS_SENTENCE} )")  # where a clause after a quote's end begins


def after_quotes(text: str) -> str:
    """`text` with each reporting clause right after a quote's end (`», elle a dit`, `? » il a demandé`)
    written verb first (`verb_first`); none where words come before the sentence's first quote."""
    if re.search(r"\w", text[: max(text.find("«"), 0)]):
        return text  # `J'ai dit « oui », il a accepté.`
    for match in reversed(list(_AFTER_QUOTE.finditer(text))):
        text = text[: match.start()] + verb_first(text[match.start() :])
    return text


def after_quoted_sentences(texts: Sequence[str]) -> list[str]:
    """The translations `texts` of a line's sentences, each that follows a quote's end (`« Où ? »`) and
    is a clause of speech alone (`Tom a demandé.`) written verb first (`demanda Tom.`)."""
    return [verb_first(text, alone=True) if k and re.search(f"{_ENDS_SENTENCE}$", texts[k - 1]) else text
            for k, text in enumerate(texts)]
