"""Text in, text out around a trained model: a line read by the text steps (text/steps.py), tokenizer, batched
search with the number constraint, and the translation written back by the same steps in reverse order.
Imports nothing from Lightning, MLflow or DVC: translating needs only the model file.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
from torch import Tensor

from attention_lab.config import param
from attention_lab.data.batching import budget_batches, pad
from attention_lab.data.special_tokens import BOS_ID, EOS, UNK, UNK_ID
from attention_lab.inference.model_file import LoadedModel, load_model
from attention_lab.inference.number_constraint import NumberConstraint
from attention_lab.inference.refusals import SourceTooLong, refuse_unreadable
from attention_lab.inference.search import run_search
from attention_lab.inference.search_steps import output_limits
from attention_lab.inference.constraints import Constraints
from attention_lab.inference.term_constraint import TermConstraint
from attention_lab.inference.check import Expected
from attention_lab.model.precision import decoding_autocast, decoding_dtype
from attention_lab.inference.translation import Translation, joined
from attention_lab.text.glossary import Glossary, term_pieces
from attention_lab.text.protect import placeholders
from attention_lab.text.quotes import read
from attention_lab.text.record import Context, Draft, Sentence
from attention_lab.text.steps import read_lines, write
from attention_lab.text.terms import terms_of

@dataclass(frozen=True)
class SearchParams:
    # Beam 8 with alpha 1.0 scored best on a sample of the valid split (docs/model-choice.md).
    beam_size: int = param(8, ge=1, le=64)  # 1 = greedy; a sentence's work grows with it (README: Limits)
    length_penalty: float = param(1.0, ge=0)  # GNMT alpha; 0 = raw log-probability
    # Options that make long outputs finish the sentence (docs/search.md); beam only, except min_len_ratio.
    coverage_penalty: float = param(0.0, ge=0)  # GNMT beta; 0 = off (and not computed)
    min_len_ratio: float = param(0.0, ge=0)  # <eos> forbidden before floor(ratio * source tokens) output tokens
    # Output tokens <= ceil(ratio * source tokens) + extra: a short source's French may take more than
    # twice its pieces (`Write to Mary today.`: 6 pieces, `Écris à Mary aujourd'hui.` 12 and `<eos>`).
    max_len_ratio: float = param(2.0, gt=0)
    max_len_extra: int = param(10, ge=0)
    batch_size: int = param(128, ge=1, le=4096)  # sentences decoded together (similar lengths batched)
    # The work one line may cause (README: Limits). The longest training source is 286 characters and 74
    # pieces: a longer line is refused before it is read (reading is linear in its length: 0.1 s at most at
    # the limit), a longer sentence before any search, never cut; no output runs past the absolute cap.
    max_source_chars: int = param(4096, ge=1)
    max_source_pieces: int = param(256, ge=1)  # `<eos>` included
    max_output_pieces: int = param(512, ge=1)
    # A line of several sentences is translated one sentence at a time (text/sentences.py);
    # off, it is read whole, as the model never saw in training.
    split_sentences: bool = True
    # Digits only as the source's digit groups, whole (inference/number_constraint.py): no number is made up.
    copy_numbers: bool = True
    # A run of words the model wrote twice in a row is written once (text/repeats.py).
    drop_repeats: bool = True


class Reading(NamedTuple):
    """Lines as the model reads them: their sentences (text/steps.py), and each one's source ids."""

    sentences: list[Sentence]
    ids: list[list[int]]


def term_rows(pieces: Sequence[str], forms: Sequence[Sequence[str]]) -> list[int]:
    """The indices of `pieces` that spell one of `forms` (a glossary term's pieces), in order."""
    rows: set[int] = set()
    for t in range(len(pieces)):
        for form in forms:
            if form and list(pieces[t : t + len(form)]) == list(form):
                rows.update(range(t, t + len(form)))
    return sorted(rows)


def input_columns(rows: list[int]) -> list[int]:
    """The decoder inputs that label the columns of the steps `rows` (increasing) kept of a sentence's
    self-attention: `<bos>` (input 0), then the output of each kept step but the last (step t's output
    is input t + 1; the last output is read by no step). A step the repeats rule drops thus leaves both
    axes: its row, and the column of the piece it wrote; the kept steps still read only earlier inputs."""
    return [0] + [t + 1 for t in rows[:-1]] if rows else []


class Translator:
    def __init__(self, loaded: LoadedModel, device: str | torch.device = "cpu", precision: str | None = None) -> None:
        """`precision`: one of model/precision.py's DECODING_PRECISIONS, or None to decode in whatever autocast
        the caller runs (a validation inside Lightning's bf16 training decodes as it trains)."""
        self.model, self.tokenizer = loaded.model, loaded.tokenizer
        self.device = torch.device(device)
        self.model.to(self.device).eval()
        self.precision = precision

    @classmethod
    def load(cls, path: str | Path, device: str | torch.device | None = None,
             precision: str = "auto") -> Translator:
        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        return cls(load_model(path, device), device, precision)

    @property
    def _arch(self) -> str:
        return "transformer" if self.model.self_attends else "rnn"

    @property
    def decodes_in(self) -> str:
        """What the searches compute in: `bf16` or `float32` (autocast a caller runs aside, `precision` None)."""
        dtype = decoding_dtype(self.precision, self.device, self._arch) if self.precision else None
        return "bf16" if dtype == torch.bfloat16 else "float32"

    def _decoding(self) -> contextlib.AbstractContextManager:
        return (decoding_autocast(self.precision, self.device, self._arch) if self.precision
                else contextlib.nullcontext())

    def read(self, lines: Sequence[str], search: SearchParams, glossary: Glossary | None = None) -> Reading:
        """`lines` as the model reads them (text/steps.py), in order, each line whole when
        `search.split_sentences` is off, with the terms of `glossary` each sentence must write; refused before
        the work they would cause: a glossary term the model cannot write, a line over `search.max_source_chars`
        or no text before any reading, a sentence over `search.max_source_pieces` before any search
        (`GlossaryError`, `SourceTooLong`, `NotText`, naming the line)."""
        if glossary:
            glossary.check(self.tokenizer.tgt)
        refuse_unreadable(lines, search.max_source_chars)
        # Names are read as placeholders only where the search can make it write them back (text/names.py).
        names = search.copy_numbers and NumberConstraint.takes_names(self.tokenizer.tgt)
        sentences = read_lines(lines, self.tokenizer.src, search.split_sentences, self.tokenizer.words, names, glossary)
        ids = self.tokenizer.src.encode_all([s.text for s in sentences])
        for sentence, sentence_ids in zip(sentences, ids):
            if len(sentence_ids) > search.max_source_pieces:
                raise SourceTooLong(sentence.line, len(sentence_ids), search.max_source_pieces)
        return Reading(sentences, ids)

    def translate(self, lines: Sequence[str], search: SearchParams | None = None,
                  deadline: float | None = None, maps: bool = False,
                  progress: Callable[[int], object] | None = None, self_maps: bool = False,
                  reading: Reading | None = None, glossary: Glossary | None = None) -> list[Translation]:
        """Translate each line sentence by sentence, the sentences of all lines in batches of similar
        length; results come back in input order. Past `deadline` (a `time.monotonic()`), the search
        raises `SearchTimeout`. `maps`: keep each layer's and head's attention (`Translation.maps`),
        not only their average. `progress(n)` is told after each batch how many lines it finished.
        `self_maps`: a Transformer's encoder and decoder self-attention too (`Translation.encoder_maps`,
        `decoder_maps`), from one more pass over each batch once its outputs are chosen: the search is
        the same either way, and off it costs nothing. `reading`: what `read(lines, search)` gave a
        caller that checked it first, so that no line is read twice. `glossary`: the terms to write."""
        search = search or SearchParams()
        sentences, ids = reading or self.read(lines, search, glossary)
        left = Counter(s.line for s in sentences if s.text)  # sentences still to search, by line

        def finished(batch: list[int]) -> None:
            lines_in = {sentences[i].line for i in batch}
            left.subtract(sentences[i].line for i in batch)
            if progress is not None:
                progress(sum(left[line] == 0 for line in lines_in))

        parts = self.translate_sentences(sentences, ids, search, deadline, maps, finished, self_maps)
        if progress is not None and len(lines) > len(left):
            progress(len(lines) - len(left))  # lines with nothing the model can read: no search
        by_line: list[list[Translation]] = [[] for _ in lines]
        for sentence, part in zip(sentences, parts):
            by_line[sentence.line].append(part)
        return [joined(line, line_parts, self.tokenizer.words) for line, line_parts in zip(lines, by_line)]

    def translate_sentences(self, sentences: Sequence[Sentence], ids: list[list[int]], search: SearchParams,
                            deadline: float | None, maps: bool, finished: Callable[[list[int]], object],
                            self_maps: bool = False) -> list[Translation]:
        """Each sentence's translation, in order; one with nothing the model can read is its carried
        characters alone, with no search. `finished(batch)` is told each batch's sentence indices."""
        src_codec, tgt_codec = self.tokenizer.src, self.tokenizer.tgt
        context = Context(src_codec, tgt_codec, self.tokenizer.words, search.drop_repeats)
        layout = self.model.decoder.attention_layout
        self_maps = self_maps and self.model.self_attends  # a recurrent model's are None
        no_maps = np.zeros((layout[0] * layout[1], 0, 0), np.float32)  # (R, 0, 0)

        def result(s: Sentence, draft: Draft, ids: list[int] = (), score: float = 0.0, kept: np.ndarray = no_maps,
                   encoder: np.ndarray = no_maps, decoder: np.ndarray = no_maps) -> Translation:
            """`s`'s translation, written (`draft`) from its search's output; none: its carried characters alone."""
            return Translation(
                source=s.text, src_pieces=[UNK if j == UNK_ID else p for p, j in zip(src_codec.pieces(s.text), ids)]
                + [EOS] * bool(ids), pieces=draft.pieces, text=draft.text, score=score, attention=draft.attention,
                output_labels=draft.pieces + [EOS] * (len(draft.attention) - len(draft.pieces)),
                unknown=[w for w, j in zip(src_codec.surface(s.text), ids) if j == UNK_ID], carried=read(draft.kept),
                maps=kept if maps else None, layout=layout, encoder_maps=encoder if self_maps else None,
                decoder_maps=decoder if self_maps else None, expected=Expected.of(s, read(draft.kept)),
                term_rows=term_rows(draft.pieces, [tgt_codec.id_pieces(form) for term in terms_of(s)
                                                   for form in term_pieces(tgt_codec, term)]))

        results = [result(s, write(Draft([], np.zeros((0, 0), np.float32), []), s, context)) for s in sentences]
        order = sorted((i for i, s in enumerate(sentences) if s.text), key=lambda i: len(ids[i]))
        forbid = () if tgt_codec.emits_unk else (UNK_ID,)
        for batch in budget_batches(order, [len(i) for i in ids], search.batch_size, None):
            src, src_len = pad([ids[i] for i in batch])
            src, src_len = src.to(self.device), src_len.to(self.device)
            limits = output_limits(src_len, search.max_len_ratio, search.max_output_pieces, search.max_len_extra)
            names = [placeholders(sentences[i]) for i in batch]
            numbers = (NumberConstraint.build([sentences[i].text for i in batch], tgt_codec, limits, search.beam_size,
                                              names) if search.copy_numbers else None)
            # A glossary needs the beam: greedy has one hypothesis, which a held `<eos>` only drags to its limit
            # (docs/glossary.md). Greedy translates as without it, and the check after writing names what it lacks.
            terms = TermConstraint.build([[term_pieces(tgt_codec, term) for term in terms_of(sentences[i])]
                                          for i in batch], tgt_codec, limits, search.beam_size) \
                if search.beam_size > 1 else None
            with self._decoding():
                decoded = run_search(self.model, src, src_len, limits, search.beam_size, search.length_penalty,
                                     coverage=search.coverage_penalty, min_len_ratio=search.min_len_ratio,
                                     forbid=forbid, deadline=deadline, maps=maps,
                                     constraints=Constraints.of(numbers, terms))
            outputs, lengths = decoded.tokens.tolist(), decoded.lengths.tolist()
            attention, scores = decoded.attention.float().cpu().numpy(), decoded.scores.tolist()
            if self_maps:
                encoder_maps, decoder_maps = self.self_attention(src, src_len, decoded.tokens, max(lengths))
            for row, i in enumerate(batch):
                s = sentences[i]
                kept = attention[row, : lengths[row], :, : len(ids[i])].transpose(1, 0, 2)  # (R, T, S)
                # The steps give back what they took out; a repair may drop pieces, and with them their rows
                # (then `<eos>`'s when emitted: heatmaps label what is written).
                draft = write(Draft(tgt_codec.id_pieces(outputs[row][: lengths[row]]), kept.mean(axis=0),
                                    list(range(lengths[row]))), s, context)
                rows, source = draft.rows, len(ids[i])
                results[i] = result(s, draft, ids[i], scores[row], kept[:, rows], *(
                    (encoder_maps[row, :, :source, :source],  # (R, S, S)
                     decoder_maps[row][:, rows][:, :, input_columns(rows)]) if self_maps else ()))  # (R, T, T)
            finished(batch)
        return results

    def self_attention(self, src: Tensor, src_len: Tensor, tokens: Tensor, steps: int) -> tuple[np.ndarray, ...]:
        """The model's encoder (B, R, S, S) and decoder (B, R, T, T) self-attention for sources (B, S),
        src_len (B,) and the search's outputs `tokens` (B, T), teacher-forced on `<bos>` and the first
        `steps` - 1 outputs: step t reads what steps before it wrote, as it did in the search. A row's
        steps after its end read what follows its `<eos>`; being later, they change none of its own."""
        tgt_in = torch.cat([torch.full_like(tokens[:, :1], BOS_ID), tokens[:, : steps - 1]], dim=1)  # (B, T)
        with torch.no_grad(), self._decoding():
            encoder, decoder = self.model.self_attention(src, src_len, tgt_in)
        return encoder.float().cpu().numpy(), decoder.float().cpu().numpy()
