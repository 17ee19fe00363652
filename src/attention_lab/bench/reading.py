"""The cost of reading a line as the model reads it (text/steps.py), on the corpus's tokenizer: the
lines that took n² steps to read, at the character limit and past it (README: Limits).

    python -m attention_lab.bench.reading [TOKENIZER]   # default artifacts/tokenizer/tokenizer.json; prints JSON

- `read_run` on `Wow`, 10,000 `!` and ` x`;
- for each kind of line: one at `max_source_chars` read, one of 100,000 characters refused at that limit (no
  reading), and the same line read with the limit lifted;
- the served model's largest request in characters (`MAX_REQUEST_CHARS`, rows at the limit) of each kind, read.

Each figure is seconds of this process' CPU time, the machine's load aside.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable

from attention_lab.data.tokenizer import Tokenizer
from attention_lab.text.end_mark import read_run
from attention_lab.text.steps import read_lines
from attention_lab.inference.refusals import SourceTooLong, refuse_unreadable
from attention_lab.inference.translator import SearchParams
from attention_lab.tracking.served_model import MAX_REQUEST_CHARS

LONG = 100_000
# What each quadratic step was slow on: a sentence without its end mark, a run of marks, runs the model cannot
# read between words, a line of emoji or of units, a run of flags (regional indicators).
KINDS = {"words without an end mark": "the cat sat on the mat ", "exclamation marks": "!", "hearts between words": "a♥",
         "cats and spaces": "🐱 ", "degrees": "5°C ", "flags": "🇫🇷"}


def seconds(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return round(time.process_time() - start, 4)


def refused(line: str, limit: int) -> None:
    try:
        refuse_unreadable([line], limit)
    except SourceTooLong:
        return
    raise AssertionError(f"a line of {len(line)} characters was not refused at {limit}")


def main() -> None:
    codec = Tokenizer.load(sys.argv[1] if len(sys.argv) > 1 else "artifacts/tokenizer/tokenizer.json").src
    limit = SearchParams().max_source_chars
    report: dict = {"max_source_chars": limit, "max_request_chars": MAX_REQUEST_CHARS,
                    "read_run_wow_10000_marks": seconds(lambda: read_run("Wow" + "!" * 10_000 + " x"))}
    for name, unit in KINDS.items():
        at_limit, long = (unit * limit)[:limit], (unit * LONG)[:LONG]
        report[name] = {"at_the_limit_read": seconds(lambda: read_lines([at_limit], codec)),
                        f"{LONG}_refused": seconds(lambda: refused(long, limit)),
                        f"{LONG}_read_limit_lifted": seconds(lambda: read_lines([long], codec)),
                        "largest_request_read": seconds(lambda: read_lines([at_limit] * (MAX_REQUEST_CHARS // limit),
                                                                           codec))}
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
