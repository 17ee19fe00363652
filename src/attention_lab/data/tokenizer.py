"""The one text pipeline: text -> ids for the model, ids -> text for people, in two modes.

- `subword` (the default): SentencePiece (Kudo and Richardson 2018) trained on the train split,
  unigram (Kudo 2018) or BPE (Sennrich et al. 2016). Open vocabulary: every word is some sequence
  of pieces, case and spacing are kept, and decoding gives ordinary text (`Je suis chez moi.`).
  A joint model shares one vocabulary between English and French, so names and numbers are the
  same pieces on both sides and can be copied.
- `word`: d2l §10.5's lowercased, space-tokenised words with a frequency-cut vocabulary; words
  outside it are `<unk>`.

Both number the reserved tokens alike (`<pad> <bos> <eos> <unk>` = 0 1 2 3), append `<eos>` to
every encoded sentence and never truncate. A `Tokenizer` is saved inside the model file, so a
model file alone is enough to translate.
"""

from __future__ import annotations

import base64
import json
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal

import sentencepiece as spm

from attention_lab.atomic import write_json
from attention_lab.config import ConfigError, from_mapping, param, to_dict
from attention_lab.data.cleaning import clean, detokenize_words, normalize_words
from attention_lab.data.corpus_words import CorpusWords
from attention_lab.data.special_tokens import BOS_ID, EOS_ID, PAD_ID, RESERVED
from attention_lab.data.word_vocab import Vocab
from attention_lab.errors import UserError

FORMAT = "attention-lab/tokenizer"
TOKENIZER_FILE = "tokenizer.json"  # in the train_tokenizer stage's output folder


@dataclass(frozen=True)
class SubwordParams:
    size: int = param(8000, ge=8)  # pieces, the 4 reserved tokens included (per side unless joint)
    model: Literal["unigram", "bpe"] = "unigram"
    joint: bool = True  # one vocabulary for both languages (lets the model tie all embeddings)
    character_coverage: float = param(1.0, gt=0, le=1)
    max_sentences: int = param(1_000_000, ge=1)  # sampled for training the model
    # Every digit its own piece: a model copies any number digit by digit instead of reading `2011`
    # as pieces it rarely saw (models trained before this key existed split digits too).
    split_digits: bool = True


@dataclass(frozen=True)
class WordParams:
    min_freq: int = param(2, ge=1)  # as d2l
    max_size: int | None = param(None, ge=len(RESERVED) + 1)  # including the 4 reserved tokens
    lowercase: bool = True  # d2l lowercases


@dataclass(frozen=True)
class TokenizerParams:
    kind: Literal["subword", "word"] = "word"  # d2l's; params.yaml chooses subword
    subword: SubwordParams = field(default_factory=SubwordParams)
    word: WordParams = field(default_factory=WordParams)


class Codec:
    """One language's text <-> ids. `encode` appends `<eos>`; `id_pieces` stops at `<eos>`."""

    emits_unk: bool  # whether `<unk>` is a token a decoder may output (then it must be replaced)

    def __len__(self) -> int:
        raise NotImplementedError

    def pieces(self, text: str) -> list[str]:
        """The tokens the model reads for `text`, as strings (heatmap labels), `<eos>` excluded."""
        raise NotImplementedError

    def surface(self, text: str) -> list[str]:
        """`pieces` as written in `text` (case kept): what replaces an output `<unk>`."""
        return self.pieces(text)

    def encode_all(self, texts: Sequence[str]) -> list[list[int]]:
        raise NotImplementedError

    @cached_property
    def characters(self) -> frozenset[str]:
        """Every character some token of the vocabulary holds (reserved tokens and byte pieces not)."""
        raise NotImplementedError

    def reads(self, char: str) -> bool:
        """Whether the model can read `char` (of cleaned text): spaces, or characters of its tokens.
        Any other is spelt as `<unk>` or as byte pieces, which training never showed it."""
        return char.isspace() or char in self.characters

    def encode(self, text: str) -> list[int]:
        return self.encode_all([text])[0]

    def piece(self, token_id: int) -> str:
        """One id's token string."""
        raise NotImplementedError

    def id_pieces(self, ids: Iterable[int]) -> list[str]:
        """Ids up to the first `<eos>` as token strings, without `<pad>`/`<bos>`."""
        pieces = []
        for i in ids:
            if i == EOS_ID:
                break
            if i not in (PAD_ID, BOS_ID):
                pieces.append(self.piece(int(i)))
        return pieces

    def join(self, pieces: Sequence[str]) -> str:
        """Token strings back to text."""
        raise NotImplementedError

    def payload(self) -> dict:
        raise NotImplementedError


class WordCodec(Codec):
    emits_unk = True

    def __init__(self, vocab: Vocab, lowercase: bool) -> None:
        self.vocab, self.lowercase = vocab, lowercase

    def __len__(self) -> int:
        return len(self.vocab)

    def pieces(self, text: str) -> list[str]:
        return normalize_words(text, self.lowercase).split()

    def surface(self, text: str) -> list[str]:
        return normalize_words(text, lowercase=False).split()

    def encode_all(self, texts: Sequence[str]) -> list[list[int]]:
        return [self.vocab.lookup(self.pieces(t)) + [EOS_ID] for t in texts]

    @cached_property
    def characters(self) -> frozenset[str]:
        return frozenset("".join(self.vocab.tokens[len(RESERVED):]))

    def reads(self, char: str) -> bool:
        """Only a symbol (an emoji, `€`) it lacks is unreadable: a letter, digit or mark it lacks
        makes its word `<unk>`, which training showed the model (rare words are `<unk>`) and which
        `replace_unknown` copies back whole."""
        return not unicodedata.category(char).startswith("S") or super().reads(char)

    def piece(self, token_id: int) -> str:
        return self.vocab.tokens[token_id]

    def join(self, pieces: Sequence[str]) -> str:
        return detokenize_words(list(pieces))

    def payload(self) -> dict:
        return {"kind": "word", "tokens": list(self.vocab.tokens), "lowercase": self.lowercase}


class SubwordCodec(Codec):
    emits_unk = False  # pieces cover every word; search forbids `<unk>` outright

    def __init__(self, proto: bytes) -> None:
        self.proto = proto
        self.processor = spm.SentencePieceProcessor(model_proto=proto)
        reserved = tuple(self.processor.id_to_piece(i) for i in range(len(RESERVED)))
        if reserved != RESERVED:
            raise ValueError(f"a subword model must number {list(RESERVED)} first, got {list(reserved)}")

    def __len__(self) -> int:
        return self.processor.get_piece_size()

    def pieces(self, text: str) -> list[str]:
        return self.processor.encode(clean(text), out_type=str)

    def encode_all(self, texts: Sequence[str]) -> list[list[int]]:
        return [ids + [EOS_ID] for ids in self.processor.encode([clean(t) for t in texts])]

    @cached_property
    def characters(self) -> frozenset[str]:
        sp = self.processor
        return frozenset("".join(sp.id_to_piece(i) for i in range(len(self))
                                 if not (sp.is_byte(i) or sp.is_control(i) or sp.is_unknown(i) or sp.is_unused(i))))

    def piece(self, token_id: int) -> str:
        return self.processor.id_to_piece(token_id)

    def join(self, pieces: Sequence[str]) -> str:
        # A bare `▁` (the word start before a digit) then a piece that starts a word spells two spaces:
        # a model wrote `5`, `▁`, `▁euros` for `5 €`.
        return " ".join(word for word in self.processor.decode_pieces(list(pieces)).split(" ") if word)

    def payload(self) -> dict:
        return {"kind": "subword", "proto": base64.b64encode(self.proto).decode("ascii")}


def codec_from_payload(payload: dict) -> Codec:
    if payload["kind"] == "word":
        return WordCodec(Vocab(tuple(payload["tokens"])), bool(payload["lowercase"]))
    if payload["kind"] == "subword":
        return SubwordCodec(base64.b64decode(payload["proto"]))
    raise ValueError(f"unknown codec kind {payload['kind']!r}")


@dataclass(frozen=True)
class Tokenizer:
    """English (`src`) and French (`tgt`) codecs, the `train_tokenizer` params that built them, and the
    words of the text they were trained on (data/corpus_words.py; None in a tokenizer built before)."""

    src: Codec
    tgt: Codec
    params: TokenizerParams
    words: CorpusWords | None = None

    @property
    def joint(self) -> bool:
        return self.src is self.tgt

    def payload(self) -> dict:
        """Plain lists, dicts and numbers: what `torch.load(weights_only=True)` accepts."""
        return {"format": FORMAT, "params": to_dict(self.params), "src": self.src.payload(),
                "tgt": None if self.joint else self.tgt.payload(),
                **({} if self.words is None else {"words": self.words.payload()})}

    @classmethod
    def from_payload(cls, payload: dict) -> Tokenizer:
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            raise ValueError("not an attention-lab tokenizer")
        src = codec_from_payload(payload["src"])
        tgt = src if payload["tgt"] is None else codec_from_payload(payload["tgt"])
        words = CorpusWords.from_payload(payload["words"]) if "words" in payload else None
        return cls(src, tgt, from_mapping(TokenizerParams, payload["params"], "train_tokenizer"), words)

    def save(self, path: str | Path) -> None:
        write_json(path, self.payload())

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        try:
            return cls.from_payload(json.loads(Path(path).read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise UserError(f"{path}: no such tokenizer file (run the train_tokenizer stage first)") from None
        except (ValueError, KeyError, TypeError, RuntimeError, ConfigError) as exc:  # RuntimeError: SentencePiece
            raise UserError(f"{path}: not a tokenizer file ({str(exc).splitlines()[0][:200]})") from None
