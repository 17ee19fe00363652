"""Typed lines through one model with two versions of the translator side by side (docs/trust.md): each
`src` folder's translator translates the same lines, read from standard input, in a process of its own,
beam 8, and a Markdown table gives both.

    git worktree add /tmp/before 6dae68e   # the code before the change
    python docs/typed_lines.py models/seq2seq /tmp/before/src src < lines.txt
"""

import json
import os
import subprocess
import sys

TRANSLATE = """
import json, sys
from attention_lab.inference.translator import Translator
lines = json.load(sys.stdin)
print(json.dumps([t.text for t in Translator.load(sys.argv[1], "cpu").translate(lines)]))
"""


def translations(model: str, src: str, lines: list[str]) -> list[str]:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    done = subprocess.run([sys.executable, "-c", TRANSLATE, model], input=json.dumps(lines), env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def table(lines: list[str], before: list[str], after: list[str], headers: tuple[str, str]) -> str:
    """A Markdown table of `lines` and their two translations, under `headers`."""
    rows = [f"| typed | {headers[0]} | {headers[1]} |", "| --- | --- | --- |"]
    return "\n".join(rows + [f"| {line} | {a} | {b} |" for line, a, b in zip(lines, before, after)])


def main(model: str, before: str, after: str) -> None:
    lines = [line.rstrip("\n") for line in sys.stdin if line.strip()]
    print(table(lines, translations(model, before, lines), translations(model, after, lines), (before, after)))


if __name__ == "__main__":
    main(*sys.argv[1:])
