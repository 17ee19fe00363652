"""The translator as an MLflow pyfunc model, written as code: `registry.log_translator` logs this
file (`python_model=` its path) with the model file as the artifact `model`; MLflow runs it when it
loads the model (`mlflow models serve`, `mlflow.pyfunc.load_model`), and `set_model` below tells it
which object is the model. Nothing is pickled.

Input: English text, a line a row, as a DataFrame with a `text` column (what the scoring server builds
from `{"dataframe_records": [{"text": "I lost."}]}` or `{"inputs": {"text": ["I lost."]}}`). Output:
a row per input row, in order: `translation`, its French translation (a row of several sentences is
translated sentence by sentence); `missing_numbers`, the numbers of the row whose value the translation does
not write, space-separated ("" when none); `missing_terms`, the glossary's French terms it does not write,
separated by ` | `; and `checks`, all that the check after writing found (inference/check.py) as a JSON object of
the kinds that found something (`{"added_numbers": ["vingt"], "missing_names": ["Siobhan"]}`; "" when none): rows
to check.
Params (optional, per request): `beam_size` (1 = greedy), `length_penalty`, `coverage_penalty`,
`min_len_ratio`, `max_len_ratio`, `max_len_extra`, `split_sentences` (false: each row whole), `copy_numbers`
(false: digits the source lacks may be written), `drop_repeats` (false: words the model wrote twice in a row
stay), `glossary` (terms the translation must use, `["database\tbase de données", ...]`, at most
`MAX_REQUEST_TERMS`; a bad entry is a 400 naming it).

The work of one request is bounded (README: Limits). Before any reading: each row at most
`SearchParams.max_source_chars`, the request at most `MAX_REQUEST_CHARS` in all, each row text (a lone
surrogate, valid JSON, is not). Before any search: each sentence at most `max_source_pieces`, the request
at most `MAX_REQUEST_PIECES` in all (its memory), the beam at most `MAX_BEAM`; outputs stop at
`max_output_pieces`. Each row is read once. From before the reading to the last search step: at most
`MAX_REQUEST_SECONDS`, under the scoring server's own 60-s timeout, which answers 504 but cannot stop the
work; the search checks it at each step, so it also counts the reading and the writing of earlier batches.
Those limits are the server's: the signature has no param for them, and MLflow drops params it does not
list. A request over a limit gets 400 naming the row (from 1) or the limit.
"""

from __future__ import annotations

import json
import time
from typing import Any

import mlflow
import pandas as pd
from mlflow.exceptions import MlflowException
from mlflow.pyfunc import PythonModel

TEXT = "text"  # the input column
OUTPUT_COLUMNS = ("translation", "missing_numbers", "missing_terms", "checks")
ARTIFACT = "model"  # the model file among the logged model's artifacts
# What a request may set: SearchParams' search options, not its limits.
REQUEST_PARAMS = ("beam_size", "length_penalty", "coverage_penalty", "min_len_ratio", "max_len_ratio", "max_len_extra",
                  "split_sentences", "copy_numbers", "drop_repeats")
MAX_REQUEST_PIECES = 16_384  # source pieces in one request: ~1,500 typical sentences, ~10 s at beam 8
# Characters in one request, counted before any reading, which the piece cap needs: 8 a piece of that cap (text
# has 3 to 4.5), 3 s of reading at most (32 rows at the character limit of the slowest text measured: bench/reading.py).
MAX_REQUEST_CHARS = 131_072
MAX_BEAM = 16
MAX_REQUEST_SECONDS = 30.0
# The request's terms: a list of 'English<TAB>French' strings, a glossary file's lines (text/glossary.py). A list
# of pairs would read better, but MLflow's params hold scalars or lists of scalars only.
GLOSSARY = "glossary"
MAX_REQUEST_TERMS = 1_000


def sentences_of(model_input: pd.DataFrame) -> list[str]:
    """The English sentences in `model_input`; anything else is refused with one line, which the
    scoring server answers with 400 (INVALID_PARAMETER_VALUE) instead of 500."""
    if not isinstance(model_input, pd.DataFrame) or TEXT not in model_input.columns:
        got = list(map(str, model_input.columns)) if isinstance(model_input, pd.DataFrame) else type(model_input)
        raise MlflowException.invalid_parameter_value(f"expected a DataFrame with a {TEXT!r} column, got {got}")
    values = model_input[TEXT].tolist()
    for row, value in enumerate(values, 1):
        if not isinstance(value, str):
            raise MlflowException.invalid_parameter_value(
                f"row {row}: {TEXT!r} must be a string, got {type(value).__name__} {value!r}"[:200])
    return values


def request_glossary(entries: list) -> Any:
    """The request's `glossary` param (the signature checked it is a list of strings) as a `Glossary`; None
    when empty. An entry that is no `English<TAB>French` term is a `UserError` naming it (from 1)."""
    from attention_lab.errors import UserError
    from attention_lab.text.glossary import Glossary

    if len(entries) > MAX_REQUEST_TERMS:
        raise UserError(f"params.{GLOSSARY}: {len(entries):,} terms, over the {MAX_REQUEST_TERMS:,} a request may hold")
    pairs = []
    for number, entry in enumerate(entries, 1):
        fields = str(entry).split("\t")
        if len(fields) != 2:
            raise UserError(f"params.{GLOSSARY}: entry {number}: expected 'English<TAB>French', "
                            f"got {str(entry)[:80]!r}")
        pairs.append((fields[0], fields[1]))
    return Glossary(pairs, f"params.{GLOSSARY}", "entry") if pairs else None


class TranslatorModel(PythonModel):
    def load_context(self, context: Any) -> None:
        # Here, not at the top: `registry` imports this file's constants without loading torch.
        # When MLflow loads the model, the model's own copy of attention_lab (its `code` folder)
        # is first on sys.path, so this is the code the model was logged with.
        from attention_lab.inference.translator import Translator

        self.translator = Translator.load(context.artifacts[ARTIFACT])

    # The scoring server and `load_model(...).predict` enforce the logged signature first, so the
    # input arrives as a DataFrame. (MLflow neither infers a schema from a DataFrame hint nor warns,
    # as it does for a missing or `Any` hint, that it cannot.)
    def predict(self, context: Any, model_input: pd.DataFrame, params: dict[str, Any] | None = None) -> pd.DataFrame:
        from attention_lab.config import from_mapping
        from attention_lab.errors import UserError
        from attention_lab.inference.search_steps import SearchTimeout
        from attention_lab.inference.refusals import NotText, SourceTooLong
        from attention_lab.inference.translator import SearchParams

        rows = sentences_of(model_input)
        deadline = time.monotonic() + MAX_REQUEST_SECONDS  # the request's share: reading, search and writing
        # Blank rows answer blank, as blank lines do in `attention-lab translate`; row numbers stay the request's,
        # counted from 1 in every error, as `translate` counts lines.
        indices = [i for i, row in enumerate(rows) if row.strip()]
        sentences = [rows[i] for i in indices]
        characters = sum(map(len, sentences))
        if characters > MAX_REQUEST_CHARS:
            raise MlflowException.invalid_parameter_value(
                f"{len(sentences)} rows of {characters} characters in all, over the {MAX_REQUEST_CHARS} one request "
                "may hold: send fewer rows per request")
        params = dict(params or {})
        entries = params.pop(GLOSSARY, None) or []
        try:  # params: those of the signature, with its defaults (SearchParams') for any left out
            glossary = request_glossary(entries)
            search = from_mapping(SearchParams, params, "params")
            if search.beam_size > MAX_BEAM:
                raise UserError(f"params.beam_size: at most {MAX_BEAM} on this server, got {search.beam_size}")
            reading = self.translator.read(sentences, search, glossary)  # each row read once: translated from this
        except SourceTooLong as exc:
            raise MlflowException.invalid_parameter_value(
                f"row {indices[exc.index] + 1}: {exc.size} {exc.unit}, over the {exc.limit} a {exc.what} may have: "
                f"{exc.advice}") from None
        except NotText as exc:
            raise MlflowException.invalid_parameter_value(f"row {indices[exc.index] + 1}: {exc.reason}") from None
        except UserError as exc:
            raise MlflowException.invalid_parameter_value(str(exc)) from None
        pieces = sum(map(len, reading.ids))
        if pieces > MAX_REQUEST_PIECES:
            raise MlflowException.invalid_parameter_value(
                f"{len(sentences)} rows of {pieces} source pieces in all, over the {MAX_REQUEST_PIECES} one "
                "request may hold: send fewer rows per request")
        try:
            translations = self.translator.translate(sentences, search, deadline, reading=reading)
        except SearchTimeout:
            raise MlflowException.invalid_parameter_value(
                f"{len(sentences)} rows need more than the {MAX_REQUEST_SECONDS:.0f} s one request may take to be "
                "read, searched and written: send fewer or shorter sentences per request") from None
        columns = {name: [""] * len(rows) for name in OUTPUT_COLUMNS}
        for i, translation in zip(indices, translations):
            found = {kind: spans for kind, spans in translation.found.as_dict().items() if spans}
            for name, value in zip(OUTPUT_COLUMNS, (translation.text, " ".join(translation.missing_numbers),
                                                    " | ".join(translation.missing_terms),
                                                    json.dumps(found, ensure_ascii=False) if found else "")):
                columns[name][i] = value
        return pd.DataFrame(columns)


mlflow.models.set_model(TranslatorModel())
