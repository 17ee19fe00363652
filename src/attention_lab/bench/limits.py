"""The cost of the worst input the limits allow (README: Limits), measured on a trained model.

    python -m attention_lab.bench.limits [MODEL_DIR]     # default models/seq2seq; prints JSON

- a line of 3,000 words through `attention-lab translate` (a fresh process): refused, in seconds;
- the longest allowed source (`max_source_pieces`) with `<eos>` suppressed, so that the search
  runs to `max_output_pieces`: greedy and beam 8;
- the served model's largest request (sources of that length up to `MAX_REQUEST_PIECES`), beam 8,
  through `TranslatorModel.predict`: answered, or refused at `MAX_REQUEST_SECONDS`.

Each figure is seconds of wall-clock time and the peak resident memory of its process so far.
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

WORDS = ("the cat sat on a mat while my old friend from the village told us about his long journey across "
         "the sea and the mountains").split()


def peak_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def longest_allowed(codec, words: list[str], limit: int) -> str:
    """The longest prefix of `words` whose source is at most `limit` pieces, `<eos>` included."""
    low, high = 1, len(words)
    while low < high:
        middle = (low + high + 1) // 2
        if len(codec.encode(" ".join(words[:middle]))) <= limit:
            low = middle
        else:
            high = middle - 1
    return " ".join(words[:low])


def main() -> None:
    import pandas as pd
    from mlflow.exceptions import MlflowException

    from attention_lab.data.special_tokens import EOS_ID
    from attention_lab.inference.translator import SearchParams, Translator
    from attention_lab.tracking.served_model import MAX_REQUEST_PIECES, TranslatorModel

    model_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "models/seq2seq")
    rng = random.Random(0)
    words = [rng.choice(WORDS) for _ in range(3000)]
    report: dict = {"model": str(model_dir), "torch_threads": torch.get_num_threads()}

    with tempfile.TemporaryDirectory() as tmp:
        long_line = Path(tmp) / "long.txt"
        long_line.write_text(" ".join(words) + "\n")
        start = time.perf_counter()
        cli = subprocess.run([sys.executable, "-m", "attention_lab.cli", "translate", "--model", str(model_dir),
                              "--input", str(long_line)], capture_output=True, text=True, check=False)
        report["cli_3000_words"] = {"seconds": round(time.perf_counter() - start, 2), "exit": cli.returncode,
                                    "stderr": cli.stderr.strip()}

    translator = Translator.load(model_dir, "cpu")
    limits = SearchParams()
    source = longest_allowed(translator.tokenizer.src, words, limits.max_source_pieces)
    stubborn = Translator.load(model_dir, "cpu")
    output = stubborn.model.decoder.output
    bias = output.bias if output.tied is not None else output.linear.bias
    with torch.no_grad():
        bias[EOS_ID] -= 1e4  # a model that never stops: every search runs to max_output_pieces
    for beam in (1, 8):
        start = time.perf_counter()
        [result] = stubborn.translate([source], SearchParams(beam_size=beam))
        report[f"longest_source_never_stopping_beam_{beam}"] = {
            "source_pieces": len(result.src_pieces), "output_pieces": len(result.pieces),
            "seconds": round(time.perf_counter() - start, 2), "peak_mb": peak_mb()}
    served = TranslatorModel()
    served.translator = translator
    rows, pieces = [], 0
    while pieces + len(translator.tokenizer.src.encode(source)) <= MAX_REQUEST_PIECES:
        rows.append(source)
        pieces += len(translator.tokenizer.src.encode(source))
    start = time.perf_counter()
    try:
        outcome = f"answered {len(served.predict(None, pd.DataFrame({'text': rows}), {'beam_size': 8}))} rows"
    except MlflowException as exc:  # the refusal is the expected outcome: report it
        outcome = exc.message
    report["served_largest_request"] = {"rows": len(rows), "pieces": pieces, "outcome": outcome,
                                        "seconds": round(time.perf_counter() - start, 1), "peak_mb": peak_mb()}
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
