"""The package's shape (issue #23): a short top level, every other module in a role subpackage,
and no module long enough to hold several jobs."""

from conftest import REPO

PACKAGE = REPO / "src" / "attention_lab"
MAX_TOP_LEVEL = 8
MAX_LINES = 250


def test_at_most_eight_modules_sit_at_the_top_level():
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert 1 < len(top) <= MAX_TOP_LEVEL, top


def test_every_other_module_sits_in_a_role_subpackage():
    nested = [path.relative_to(PACKAGE) for path in PACKAGE.rglob("*.py") if path.parent != PACKAGE]
    assert nested, "no subpackage found"
    assert all(len(path.parts) == 2 and (PACKAGE / path.parts[0] / "__init__.py").exists() for path in nested), nested


def test_no_module_is_over_250_lines():
    lengths = {str(path.relative_to(PACKAGE)): len(path.read_text().splitlines()) for path in PACKAGE.rglob("*.py")}
    assert len(lengths) > MAX_TOP_LEVEL  # read the package, not an empty folder
    assert {name: n for name, n in lengths.items() if n > MAX_LINES} == {}
