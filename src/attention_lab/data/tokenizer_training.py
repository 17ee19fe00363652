"""The `train_tokenizer` stage's work: training the tokenizer on the train split, and its report."""

from __future__ import annotations

import re
from collections.abc import Sequence

import sentencepiece as spm

from attention_lab.config import ConfigError
from attention_lab.data.cleaning import clean, normalize_words
from attention_lab.data.corpus_words import CorpusWords
from attention_lab.data.special_tokens import BOS_ID, EOS_ID, PAD_ID, RESERVED, UNK, UNK_ID
from attention_lab.data.word_vocab import Vocab
from attention_lab.data.tokenizer import (
    SubwordCodec,
    SubwordParams,
    Tokenizer,
    TokenizerParams,
    WordCodec,
)
from attention_lab.errors import UserError


def train_subword(texts: Sequence[str], params: SubwordParams, seed: int = 0) -> SubwordCodec:
    """A SentencePiece model of `params.size` pieces trained on `texts` (a small corpus may give
    fewer: the size is an upper bound)."""
    model = _BytesSink()
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter([clean(t) for t in texts]), model_writer=model, vocab_size=params.size,
            model_type=params.model, character_coverage=params.character_coverage,
            pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID, unk_id=UNK_ID, unk_piece=UNK,
            pad_piece=RESERVED[PAD_ID], bos_piece=RESERVED[BOS_ID], eos_piece=RESERVED[EOS_ID],
            hard_vocab_limit=False, split_digits=params.split_digits, byte_fallback=True,
            # identity: decoding gives back exactly the cleaned text (NFKC would turn … into ...)
            normalization_rule_name="identity", input_sentence_size=params.max_sentences,
            shuffle_input_sentence=True, num_threads=1, minloglevel=2)
    except RuntimeError as exc:
        needed = re.search(r"smaller than required_chars\. \d+ vs (\d+)", str(exc))
        if needed:
            raise ConfigError(f"train_tokenizer.subword.size: {params.size} is below the {needed.group(1)} characters, "
                              "bytes and reserved tokens this corpus needs") from None
        reason = str(exc).splitlines()[0][:200]
        raise UserError(f"train_tokenizer.subword: SentencePiece could not train ({reason})") from None
    return SubwordCodec(model.data)


class _BytesSink:
    data = b""

    def write(self, data: bytes) -> None:
        self.data += data


def build_tokenizer(splits: dict, params: TokenizerParams) -> tuple[Tokenizer, dict]:
    """The tokenizer, trained on the train split only (the split's words kept with it), and a report of
    its sizes and of how many tokens a sentence takes (and, in word mode, the OOV rates of the other splits).

    `splits` maps split names to frames with raw `src` and `tgt` text columns.
    """
    train = splits["train"]
    if params.kind == "subword":
        sub = params.subword
        if sub.joint:
            src = tgt = train_subword(list(train["src"]) + list(train["tgt"]), sub)
        else:
            src, tgt = train_subword(list(train["src"]), sub), train_subword(list(train["tgt"]), sub)
    else:
        word = params.word
        src, tgt = (WordCodec(Vocab.build([normalize_words(t, word.lowercase).split() for t in train[side]],
                                          word.min_freq, word.max_size), word.lowercase)
                    for side in ("src", "tgt"))
    tokenizer = Tokenizer(src, tgt, params, CorpusWords.of(train["src"], train["tgt"]))
    report: dict = {"kind": params.kind, "joint": tokenizer.joint}
    for side, codec in (("src", src), ("tgt", tgt)):
        ids = {name: codec.encode_all(list(frame[side])) for name, frame in splits.items()}
        counts = [len(i) - 1 for i in ids["train"]]
        report[side] = {"size": len(codec), "tokens_per_sentence": round(sum(counts) / max(len(counts), 1), 3),
                        "max_tokens": max(counts, default=0),
                        **{f"unk_rate_{name}": round(_unk_rate(i), 5) for name, i in ids.items() if name != "train"}}
    return tokenizer, report


def _unk_rate(sentences: list[list[int]]) -> float:
    total = sum(len(s) - 1 for s in sentences)
    return sum(s.count(UNK_ID) for s in sentences) / total if total else 0.0
