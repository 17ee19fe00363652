"""Terms: the first text step (text/steps.py) records the user's glossary terms (text/glossary.py) found in the
sentence as typed, before any step rewrites it; it changes nothing of the English."""

from __future__ import annotations

from attention_lab.text.record import Context, Sentence, Step


class Terms(Step):
    """Reads nothing out of the English: records the glossary's terms in the sentence as typed (`Match`es)."""

    name = "terms"

    def read(self, sentence: Sentence, context: Context) -> Sentence:
        found = tuple(context.glossary.matches(sentence.text)) if context.glossary else ()
        return sentence.read(self, sentence.text, found)


def terms_of(sentence: Sentence) -> list[str]:
    """The French terms `sentence` must write, each once, in order of their English."""
    return list(dict.fromkeys(match.french for match in sentence.record.get(Terms.name, ())))
