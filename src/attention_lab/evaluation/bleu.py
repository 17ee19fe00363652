"""BLEU: d2l's sentence-level definition (§10.7) and sacrebleu's corpus-level scores.

d2l's BLEU (after Papineni et al. 2002) on space-tokenized strings:
`exp(min(0, 1 - len_label / len_pred)) * prod_{n=1..k} p_n ** (1 / 2**n)`, where p_n is the clipped
n-gram precision. Corpus scores use sacrebleu (Post 2018) with every reference of each source.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import sacrebleu

# The sentences of d2l §10.7.3's table: English as a user types it, French as d2l labels it.
D2L_EXAMPLES = (("Go.", "va !"), ("I lost.", "j'ai perdu ."), ("He's calm.", "il est calme ."),
                ("I'm home.", "je suis chez moi ."))


def d2l_bleu(pred: str, label: str, k: int = 2) -> float:
    """d2l's BLEU of one prediction against one label, with n-grams up to `k`.

    A prediction with fewer than `k` tokens has no `k`-grams and scores 0 (d2l divides by zero).
    """
    pred_tokens, label_tokens = pred.split(), label.split()
    if len(pred_tokens) < k:
        return 0.0
    score = math.exp(min(0.0, 1 - len(label_tokens) / len(pred_tokens)))
    for n in range(1, k + 1):
        label_ngrams = Counter(tuple(label_tokens[i : i + n]) for i in range(len(label_tokens) - n + 1))
        pred_ngrams = Counter(tuple(pred_tokens[i : i + n]) for i in range(len(pred_tokens) - n + 1))
        matches = sum(min(count, label_ngrams[gram]) for gram, count in pred_ngrams.items())
        score *= (matches / (len(pred_tokens) - n + 1)) ** (0.5**n)
    return score


def reference_streams(refs: Sequence[Sequence[str]]) -> list[list[str | None]]:
    """Per-source reference lists -> sacrebleu's streams, `None` where a source has fewer."""
    width = max((len(r) for r in refs), default=0)
    return [[r[i] if i < len(r) else None for r in refs] for i in range(width)]


def corpus_scores(hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> dict:
    """Corpus BLEU (13a, case-insensitive) against all references and against the first only, the
    same cased, chrF, the output/reference length ratio, and signatures.

    Case-insensitive BLEU is the headline: it compares d2l's lowercasing word models with cased
    subword models. hyps: one hypothesis per source; refs: each source's raw references.
    """
    bleu, cased = sacrebleu.BLEU(tokenize="13a", lowercase=True), sacrebleu.BLEU(tokenize="13a")
    chrf = sacrebleu.CHRF()
    streams = reference_streams(refs)
    multi = bleu.corpus_score(list(hyps), streams)
    single = sacrebleu.BLEU(tokenize="13a", lowercase=True).corpus_score(list(hyps), [[r[0] for r in refs]])
    return {"bleu": round(multi.score, 3), "bleu_single_ref": round(single.score, 3),
            "bleu_cased": round(cased.corpus_score(list(hyps), streams).score, 3),
            "chrf": round(chrf.corpus_score(list(hyps), streams).score, 3),
            "bleu_precisions": [round(p, 3) for p in multi.precisions], "brevity_penalty": round(multi.bp, 4),
            "length_ratio": round(multi.sys_len / max(multi.ref_len, 1), 4),
            "signature": {"bleu": str(bleu.get_signature()), "bleu_cased": str(cased.get_signature()),
                          "chrf": str(chrf.get_signature())}}


def sentence_chrf(hyp: str, refs: Sequence[str]) -> float:
    """chrF (sacrebleu's: character 6-grams, beta 2) of one hypothesis against all its references, to 0.1: the one
    sentence score of evaluate's translations table and of the explorer page. Sentence BLEU is not: its smoothed
    n-gram precisions gave `Colol !` 50 against `Calmez-vous !` for its `!` alone (chrF: 7.2)."""
    return round(sacrebleu.CHRF().sentence_score(hyp, list(refs)).score, 1)


def bleu_statistics(hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> list[int]:
    """BLEU's sufficient statistics (output length, reference length, 4 n-gram match counts, 4
    n-gram totals): they add up over batches and processes to those of the whole corpus."""
    score = sacrebleu.BLEU(tokenize="13a", lowercase=True).corpus_score(list(hyps), reference_streams(refs))
    return [score.sys_len, score.ref_len, *score.counts, *score.totals]


def bleu_from_statistics(stats: Sequence[int]) -> float:
    """`corpus_scores`' BLEU from summed `bleu_statistics`."""
    sys_len, ref_len, *counts = (int(v) for v in stats)
    return sacrebleu.BLEU.compute_bleu(counts[:4], counts[4:], sys_len, ref_len, smooth_method="exp").score
