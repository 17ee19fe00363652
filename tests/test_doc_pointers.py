"""Every pointer the documentation gives leads somewhere, and every key of params.yaml says what it is.

Read: README.md, docs/**/*.md, the scripts in docs/scripts/ and params.yaml's comments (the package's
docstrings too, for pointers to a section). A pointer is:

- a repository path: rooted (`src/...`, `pipeline/...`, `tests/...`, `docs/...`, `.ci/...`), or a module
  of the package named from its subpackage (`text/casing.py`), or a backticked module name (`casing.py`);
- a relative Markdown link, with its `#anchor` if it has one;
- a section: `README: Limits`, `design.md: Glossary`, `docs/trust.md: Casing` name a heading of that file.

A citation of the README that names no section (`...: README)`, `see README for`) points nowhere, and a
document whose opening pins it to a commit (`notes on the code at 1a2b3c4`) describes code that has moved on
(a measurement naming the commit it ran is another thing: that is where it came from). Each check is a function
of a text returning its problems, so the tests below also feed it wrong texts and see it fail.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "src" / "attention_lab"
SUBPACKAGES = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))
ROOTS = ("src", "pipeline", "tests", "docs", ".ci")

ROOTED = re.compile(rf"(?<![\w./-])((?:{'|'.join(re.escape(r) for r in ROOTS)})/[\w./-]*)")
MODULE = re.compile(rf"(?<![\w./-])((?:{'|'.join(SUBPACKAGES)})/[\w/]+\.py)\b")
BACKTICKED = re.compile(r"`(\w+\.py)`")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
SECTION = re.compile(r"(?<![\w/.-])((?:docs/)?(?:README|[\w-]+\.md))(?:'s)?:[ \t]*\n?[ \t]*([A-Z][^\n();,:\"`]*)")
BARE_README = re.compile(r"(?:[:(]\s*README\)|\bsee README\b(?!:))")
PINNED = re.compile(r"\bcode (?:at|as of) [0-9a-f]{7,40}\b")


def documents() -> dict[str, str]:
    """The text of each file this test reads for paths and sections: params.yaml's comments only."""
    files = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")), *sorted((REPO / "docs/scripts").glob("*.py")),
             *sorted((REPO / "docs/scripts").glob("*.sh"))]
    texts = {str(f.relative_to(REPO)): f.read_text(encoding="utf-8") for f in files}
    texts["params.yaml"] = params_comments((REPO / "params.yaml").read_text(encoding="utf-8"))
    return texts


def params_comments(text: str) -> str:
    return "\n".join(line.split("#", 1)[1] for line in text.splitlines() if "#" in line)


def tracked_names() -> set[str]:
    return {p.name for root in ROOTS for p in (REPO / root).rglob("*.py")}


# -- paths ------------------------------------------------------------------------------------------

def path_problems(text: str, where: str, base: Path = REPO) -> list[str]:
    problems = []
    for match in ROOTED.finditer(text):
        path = match.group(1).rstrip(".")
        if text[match.end():match.end() + 1] in "*{<" and text[match.end():match.end() + 1]:
            continue  # a pattern (`docs/images/*.png`), not a path
        if not (REPO / path).exists():
            problems.append(f"{where}: {path}: no such file")
    for path in MODULE.findall(text):
        if not (PACKAGE / path).exists():
            problems.append(f"{where}: {path}: no such module in src/attention_lab/")
    names = tracked_names()
    problems += [f"{where}: `{name}`: no such module" for name in BACKTICKED.findall(text) if name not in names]
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (base / file) if file else None
        if linked is not None and not linked.exists():
            problems.append(f"{where}: link {target}: no such file")
        elif anchor and (linked is None or linked.suffix == ".md"):
            heads = headings((linked or base).read_text(encoding="utf-8")) if linked else []
            if linked and anchor not in {slug(h) for h in heads}:
                problems.append(f"{where}: link {target}: no such heading")
    return problems


# -- sections -----------------------------------------------------------------------------------------

def headings(markdown: str) -> list[str]:
    text = re.sub(r"^```.*?^```", "", markdown, flags=re.M | re.S)
    return [h.strip() for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)]


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def named_file(name: str) -> Path | None:
    if name in ("README", "README.md"):
        return REPO / "README.md"
    if "/" in name:
        return REPO / name
    found = sorted((REPO / "docs").glob(name))
    return found[0] if found else None


def section_problems(text: str, where: str) -> list[str]:
    problems = []
    for name, title in SECTION.findall(text):
        title = " ".join(title.split()).rstrip(" .")
        file = named_file(name)
        if file is None or not file.exists():
            problems.append(f"{where}: {name}: {title}: no such file")
            continue
        heads = [h.lower() for h in headings(file.read_text(encoding="utf-8"))]
        wanted = title.lower()
        if not any(h.startswith(wanted) or re.match(re.escape(h) + r"\b", wanted) for h in heads):
            problems.append(f"{where}: {name}: {title}: no such heading")
    problems += [f"{where}: {m.group(0)!r} names no section of the README" for m in BARE_README.finditer(text)]
    opening = text.strip().split("\n\n", 1)[0]
    problems += [f"{where}: {m.group(0)!r}: documents describe the current code" for m in PINNED.finditer(opening)]
    return problems


def docstrings_of_the_package() -> dict[str, str]:
    """The comments and docstrings of src/ and pipeline/, for their pointers to sections."""
    texts = {}
    for path in sorted([*PACKAGE.rglob("*.py"), *(REPO / "pipeline").glob("*.py")]):
        texts[str(path.relative_to(REPO))] = path.read_text(encoding="utf-8")
    return texts


# -- params.yaml --------------------------------------------------------------------------------------

def undocumented_keys(text: str) -> list[str]:
    """Keys of params.yaml with neither a comment on their line nor a comment line right above. A
    section (a top-level key) is its stage's; a key under another section at the same place as a
    documented one (`heatmaps.search.beam_size` as `evaluate.search.beam_size`) is documented there."""
    lines = text.splitlines()
    stack: list[tuple[int, str]] = []
    keys: dict[str, bool] = {}
    for i, line in enumerate(lines):
        match = re.match(r"^( *)([A-Za-z_]\w*):", line)
        if not match:
            continue
        indent = len(match.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, match.group(2)))
        if indent == 0:
            continue
        above = lines[i - 1].strip() if i else ""
        keys[".".join(name for _, name in stack)] = "#" in line or above.startswith("#")
    documented_tails = {key.split(".", 1)[1] for key, commented in keys.items() if commented}
    return [key for key, commented in keys.items() if not commented and key.split(".", 1)[1] not in documented_tails]


# -- the repository's documents -------------------------------------------------------------------------

def test_every_path_and_link_in_the_docs_exists():
    problems = []
    for where, text in documents().items():
        problems += path_problems(text, where, (REPO / where).parent)
    assert problems == []


def test_every_section_pointer_names_a_heading():
    problems = []
    for where, text in {**documents(), **docstrings_of_the_package()}.items():
        problems += section_problems(text, where)
    assert problems == []


def test_every_params_key_has_a_comment():
    assert undocumented_keys((REPO / "params.yaml").read_text(encoding="utf-8")) == []


def unlisted_scripts(index: str, names: list[str]) -> list[str]:
    """Scripts of docs/scripts/ that its README's table does not name (one row each, what it measures)."""
    rows = [line for line in index.splitlines() if line.startswith("| ")]
    return [name for name in names if not any(f"`{name}`" in row for row in rows)]


def test_every_script_has_its_line_in_the_scripts_readme():
    folder = REPO / "docs/scripts"
    names = sorted(p.name for p in folder.iterdir() if p.suffix in (".py", ".sh"))
    assert names and unlisted_scripts((folder / "README.md").read_text(encoding="utf-8"), names) == []
    assert unlisted_scripts("| `a.py` | measures a |\n", ["a.py", "b.sh"]) == ["b.sh"]


def test_the_readme_tests_docstring_states_its_cap():
    source = (REPO / "tests/test_readme.py").read_text(encoding="utf-8")
    [cap] = re.findall(r"^MAX_LINES = (\d+)", source, flags=re.M)
    stated = re.findall(r"at most (\d+) lines", ast.get_docstring(ast.parse(source)) or "")
    assert stated == [cap]


# -- the checks fail on wrong text ------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("moved: `src/attention_lab/inference/casing.py`", "src/attention_lab/inference/casing.py"),
    ("the rule (inference/casing.py) reads it", "inference/casing.py"),
    ("Normalize (`shorthand.py`, `units.py`)", "`shorthand.py`"),
    ("see [the notes](docs/nowhere.md)", "docs/nowhere.md"),
    ("see [the limits](README.md#nowhere)", "no such heading"),
    ("run docs/ablation.py MODEL", "docs/ablation.py"),
    ("    python pipeline/nowhere.py", "pipeline/nowhere.py"),
])
def test_path_check_fails_on_missing_paths(text, expected):
    problems = path_problems(text, "t")
    assert any(expected in problem for problem in problems), problems


def test_path_check_passes_real_paths_and_prose():
    text = ("`src/attention_lab/text/casing.py`, text/casing.py, `casing.py`, docs/images/*.png, "
            "docs/design.md. [x](README.md#limits) [y](https://d2l.ai/docs/x.py) ../shared/data/x.tsv, "
            "models/seq2seq/model.pt, data/fra-eng.zip, a `-S key=value`, the tests/ folder")
    assert path_problems(text, "t") == []


@pytest.mark.parametrize("text, expected", [
    ("renamed pairs added (numbers copied, README: Numbers); 0 = off", "README: Numbers"),
    ("length_penalty: 1.0  # GNMT alpha (beam and alpha chosen on the valid split: README)", "README)"),
    ("# d2l's seed configuration: see README for its command", "see README"),
    ("(design.md: Nowhere at all)", "design.md: Nowhere at all"),
    ("2026-11-26 · design notes on the code at cc8727f\n\n# Design notes", "code at cc8727f"),
])
def test_section_check_fails_on_stale_pointers(text, expected):
    problems = section_problems(text, "t")
    assert any(expected in problem for problem in problems), problems


def test_section_check_passes_real_sections():
    text = "(README: Limits), the README's table, README.md: Glossary; a\n\nmeasured, code at cc8727f"
    assert section_problems(text, "t") == []


def test_params_check_fails_on_a_key_without_a_comment():
    text = ("train:\n  # the seed\n  seed: 0\n  lr: 0.1   # the rate\n  weight_decay: 0.0\n"
            "  search:\n    # one\n    beam: 4\nheatmaps:\n  search:\n    beam: 4\n")
    assert undocumented_keys(text) == ["train.weight_decay", "train.search", "heatmaps.search"]
