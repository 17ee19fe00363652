"""A reporting clause after a quote (`"Come here," she said.`) with its subject after the verb, as
French writes it: `« Viens ici », dit-elle.`, `« Où est-ce ? » demanda-t-elle.`

The model translates the clause as a sentence of its own (`elle a dit`, `elle a demandé`): French that
no French writer puts after a quote. The corpus's French writes the verb first, in the simple past
(`dit-il`, `répondit-elle`: 11 lines quote a speaker; none writes `il a dit` after the quote). So a
clause that follows a quote's end and begins with a pronoun, the perfect's `a` or `ont` and a past
participle is written with the verb first: in the simple past for the verbs of speech listed below
(`dit-il`, `demanda-t-elle`, `répondirent-ils`), and as the perfect inverted for another participle in
`-é` (`a-t-il chuchoté`). A name (a capitalised word, or two joined by a hyphen) is put after a verb of
speech in the simple past (`Tom a dit` -> `dit Tom`) and stays where the model put it before another
participle. Any other clause (`elle a des chats`), one that opens a quote of its own (`« Non », elle a
dit « oui ».`) and one after a quote that words of the sentence come before (`J'ai dit « oui », il a
accepté.`: the quote is part of a clause, and what follows it reports no speech) are left as written. A
quote that ends in `?`, `!` or `…` ends its sentence, so a clause after it capitalised (`"Where?" Tom
asked.`) is a sentence of its own: it is written verb first only when it is a clause of speech and nothing
more (`« Où ? » demanda Tom.`, not `Il a sauté.` or `Tom a dit non.`).
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
