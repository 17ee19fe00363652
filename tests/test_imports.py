"""Inference loads no training-only code: neither the training stack nor the hand-written backward; and no
module of the package imports, even only for type hints, a module that imports it."""

import subprocess
import sys
from pathlib import Path

from conftest import REPO
from test_dvc_deps import imported_modules

from attention_lab.inference import TRAINING_ONLY, training_only


def test_the_translator_imports_no_training_only_module():
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", "import attention_lab.inference.translator"],
                            check=False, capture_output=True, text=True, cwd=REPO, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    # -X importtime writes a line per module imported: "import time: self | cumulative | name".
    imported = {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines()
                if line.startswith("import time:") and "|" in line}
    assert {"torch", "attention_lab.inference.translator", "attention_lab.model.decoder"} <= imported  # read right
    assert training_only(["pytorch_lightning.core", "dvc", "attention_lab.model.bahdanau_backward", "torch"]) == [
        "attention_lab.model.bahdanau_backward", "dvc", "pytorch_lightning.core"]  # the check reads names right
    assert "attention_lab.model.gru_cell" in TRAINING_ONLY
    loaded = training_only(imported)
    assert not loaded, f"importing the translator loaded {loaded}"


def module_imports(src: Path) -> dict[str, set[str]]:
    """Each module under `src` and the package's modules it imports anywhere in its text: at the
    top, inside functions and under `if TYPE_CHECKING:` alike."""
    files = {".".join(path.relative_to(src).with_suffix("").parts).removesuffix(".__init__"): path
             for path in src.rglob("*.py")}
    return {name: imported_modules(path, name if path.name == "__init__.py" else name.rpartition(".")[0])
            & files.keys() - {name} for name, path in files.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of `graph`, each once, as the path that closes it."""
    found, done = [], set()

    def visit(name: str, path: list[str]) -> None:
        for other in sorted(graph[name]):
            if other in path:
                cycle = path[path.index(other):]
                if not any(set(cycle) == set(seen) for seen in found):
                    found.append(cycle + [other])
            elif other not in done:
                visit(other, path + [other])
        done.add(name)

    for name in sorted(graph):
        if name not in done:
            visit(name, [name])
    return found


def test_the_import_reader_sees_type_checking_imports_and_circles(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from pkg.b import B\n")
    (tmp_path / "pkg" / "b.py").write_text("from typing import TYPE_CHECKING\n"
                                           "if TYPE_CHECKING:\n    from pkg import a\n")
    (tmp_path / "pkg" / "c.py").write_text("def f():\n    from . import a\n")
    graph = module_imports(tmp_path)
    assert graph == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg", "pkg.a"}, "pkg.c": {"pkg", "pkg.a"}}
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_no_import_circles_in_the_package():
    graph = module_imports(REPO / "src")
    assert len(graph) > 50 and "attention_lab.model.params" in graph["attention_lab.model.seq2seq"]  # read right
    found = circles(graph)
    assert not found, "import circles (type hints included): " + "; ".join(" -> ".join(c) for c in found)
