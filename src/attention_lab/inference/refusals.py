"""Lines the translator refuses, naming each, before the work they would cause: a line too long to read
(`max_source_chars`) or that is no text, before any reading; a sentence too long to search (`max_source_pieces`),
before any search (README: Limits). Each names the line's index in the translated list; `at` moves it to the
line's index in a longer input (inference/lines.py), and the CLI, the served model, `evaluate` and `heatmaps`
word it in their own terms."""

from __future__ import annotations

from collections.abc import Sequence

from attention_lab.errors import UserError

# A source limit's key: what it counts, and in what.
SOURCE_LIMITS = {"max_source_chars": ("characters", "line"), "max_source_pieces": ("pieces", "sentence")}


class SourceTooLong(UserError):
    """A line over `max_source_chars`, or a sentence of it over `max_source_pieces` (`key`): `size` characters
    or pieces. `index` is the line's position in the translated list."""

    def __init__(self, index: int, size: int, limit: int, key: str = "max_source_pieces") -> None:
        self.index, self.size, self.limit, self.key = index, size, limit, key
        self.unit, self.what = SOURCE_LIMITS[key]
        self.advice = f"split it into shorter {self.what}s"
        super().__init__(f"sentence {index + 1}: {self.over(key)}: {self.advice}")

    def over(self, name: str) -> str:
        """The size and the limit, named `name` (the key, an option, a path in params.yaml)."""
        return f"{self.size} {self.unit}, over {name} {self.limit}"

    def at(self, index: int) -> SourceTooLong:
        """The same refusal for the line at `index` of a longer input."""
        return SourceTooLong(index, self.size, self.limit, self.key)


class NotText(UserError):
    """A line that is no Unicode text: a lone surrogate, which JSON (`"\\ud800"`) and a command line's
    undecodable bytes can carry, and on which the segmenter fails. `index` as `SourceTooLong`'s."""

    def __init__(self, index: int, reason: str) -> None:
        self.index, self.reason = index, reason
        super().__init__(f"sentence {index + 1}: {reason}")

    def at(self, index: int) -> NotText:
        return NotText(index, self.reason)


def refuse_unreadable(lines: Sequence[str], max_chars: int) -> None:
    """Raises `SourceTooLong` for the first of `lines` over `max_chars` characters, or `NotText`: counted
    before any reading, whose work grows with the line."""
    for i, line in enumerate(lines):
        if len(line) > max_chars:
            raise SourceTooLong(i, len(line), max_chars, "max_source_chars")
        try:
            line.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise NotText(i, f"not UTF-8 text ({exc.reason} at character {exc.start + 1})") from None
