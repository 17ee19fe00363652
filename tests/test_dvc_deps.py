"""`dvc.yaml` lists, for every stage, exactly the code the stage runs: its `pipeline/` module and
every `attention_lab` module it imports, directly or not (lazy imports inside functions too).
A missing path would let a code change go unnoticed by `dvc repro`; an extra one reruns a stage
for nothing. On failure the message names the stage and the paths to add or remove."""

import ast
import re
from pathlib import Path

import pytest
import yaml
from conftest import REPO

SRC = REPO / "src"


def module_file(name: str) -> Path | None:
    """The file of module `attention_lab.x.y` (a package's __init__.py), or None if not ours."""
    if name != "attention_lab" and not name.startswith("attention_lab."):
        return None
    base = SRC.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_modules(path: Path, package: str) -> set[str]:
    """Names of the modules `path` imports anywhere in its body, resolved from `package`."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)  # `from pkg import module`
    return names


def code_of(stage_module: Path) -> set[Path]:
    """The stage's module and every project file it reaches through imports."""
    seen: set[Path] = set()
    todo = [(stage_module, "pipeline")]
    while todo:
        path, package = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in imported_modules(path, package):
            found = module_file(name)
            if found is None:
                continue
            parts = name.split(".")
            todo.append((found, name if found.name == "__init__.py" else ".".join(parts[:-1])))
            for depth in range(1, len(parts)):  # importing a.b.c runs a/__init__.py and a/b/__init__.py
                parent = ".".join(parts[:depth])
                todo.append((module_file(parent), parent))
    return {p for p in seen if p is not None}


def stages() -> dict:
    return yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]


@pytest.mark.parametrize("name", sorted(stages()))
def test_stage_lists_exactly_the_code_it_imports(name):
    stage = stages()[name]
    module = re.search(r"python -m (pipeline\.\w+)", stage["cmd"]).group(1)
    needed = {str(p.relative_to(REPO)) for p in code_of(REPO / (module.replace(".", "/") + ".py"))}
    listed = {d for d in stage.get("deps", []) if isinstance(d, str) and d.endswith(".py")}
    assert not needed - listed, f"{name}: add to deps: {sorted(needed - listed)}"
    assert not listed - needed, f"{name}: not imported, remove from deps: {sorted(listed - needed)}"
    # A module's files beside it, named as it is (evaluation/explorer.html, read by explorer.py), are its code too.
    resources = {str(r.relative_to(REPO)) for p in code_of(REPO / (module.replace(".", "/") + ".py"))
                 for r in p.parent.glob(f"{p.stem}.*") if r.suffix not in (".py", ".pyc")}
    assert resources <= set(stage.get("deps", [])), f"{name}: add to deps: {sorted(resources - set(stage['deps']))}"


def test_the_walk_follows_indirect_and_package_imports():
    # train_seq2seq reaches the tokenizer and the translator only through other modules.
    code = {str(p.relative_to(REPO)) for p in code_of(REPO / "pipeline/train_seq2seq.py")}
    assert {"src/attention_lab/data/tokenizer.py", "src/attention_lab/inference/translator.py",
            "src/attention_lab/__init__.py", "pipeline/train_seq2seq.py"} <= code
    nw = {str(p.relative_to(REPO)) for p in code_of(REPO / "pipeline/train_nw.py")}
    assert "src/attention_lab/nw/__init__.py" in nw and "src/attention_lab/data/tokenizer.py" not in nw


def rewrite_code_deps(text: str) -> str:
    """dvc.yaml's text with each stage's `.py` deps replaced by the ones its imports reach (the
    other deps, comments and order kept)."""
    out, stage_name = [], None
    for line in text.splitlines():
        match = re.match(r"^  (\w+):$", line)
        if match:
            stage_name = match.group(1)
        if stage_name and re.match(r"^    - (pipeline|src)/.*\.py$", line):
            continue
        out.append(line)
        if stage_name and line == "    deps:":
            module = re.search(r"python -m (pipeline\.\w+)", stages()[stage_name]["cmd"]).group(1)
            code = sorted(str(p.relative_to(REPO)) for p in code_of(REPO / (module.replace(".", "/") + ".py")))
            out.extend(f"    - {path}" for path in code)
    return "\n".join(out) + "\n"


if __name__ == "__main__":  # `python tests/test_dvc_deps.py`: rewrite dvc.yaml's code deps from the imports
    (REPO / "dvc.yaml").write_text(rewrite_code_deps((REPO / "dvc.yaml").read_text()))
