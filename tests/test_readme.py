"""README.md: at most 199 lines, and every command in it works as written from a fresh clone.

Nothing long runs: each command is parsed, not executed. `attention-lab` lines go through the CLI's
own parser, `dvc` and `mlflow` lines through theirs, every `-S key=value` is applied to a copy of
`params.yaml` the way `dvc exp run -S` applies it and the result is validated by the stages' own
params classes, `make` targets and variables must exist in the Makefile, and every relative link,
image and path the README names must exist. The layout and the pipeline table must name what is
there. Each check is a function of the README's text returning its problems, so the tests below
also feed it small wrong texts and see it fail.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import json
import io
import re
import shlex
import shutil
import sys
import tempfile
import warnings
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
MAX_LINES = 199
# Programs a README command may start with; each has a check below (or needs none).
PROGRAMS = {"attention-lab", "dvc", "mlflow", "make", "curl", "echo", "printf"}
SEPARATORS = {"|", "||", "&&", ";", "&"}
REDIRECTS = {">", ">>", "<", ">&", "&>", "<<<"}

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # `pipeline` is a package at the repository root


# -- reading the README --------------------------------------------------------------------------

def fenced_blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.M | re.S)


def simple_commands(block: str) -> list[tuple[list[str], list[str]]]:
    """Each simple command of a bash block: (argv, files it redirects output to). Continuation
    lines are joined, comments dropped, and pipes, `&&` and `;` split commands."""
    commands = []
    for line in block.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        argv: list[str] = []
        outputs: list[str] = []
        tokens = iter(lexer)
        for token in tokens:
            if token in SEPARATORS:
                if argv:
                    commands.append((argv, outputs))
                argv, outputs = [], []
            elif token in REDIRECTS:
                target = next(tokens, "")
                if token in {">", ">>"}:
                    outputs.append(target)
            else:
                argv.append(token)
        if argv:
            commands.append((argv, outputs))
    return commands


def bash_commands(text: str) -> list[tuple[list[str], list[str]]]:
    return [command for block in fenced_blocks(text, "bash") for command in simple_commands(block)]


# -- params: what `dvc exp run -S` does, then the stages' own validation ------------------------

def stage_params_classes() -> dict[str, type]:
    """section -> the dataclass its stage loads it into, read from `load_section` calls in
    `pipeline/`."""
    classes = {}
    for path in sorted((REPO / "pipeline").glob("*.py")):
        module = None
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "load_section"
                    and len(node.args) == 3 and isinstance(node.args[1], ast.Constant)
                    and isinstance(node.args[2], ast.Name)):
                module = module or importlib.import_module(f"pipeline.{path.stem}")
                classes[node.args[1].value] = getattr(module, node.args[2].id)
    return classes


def set_values(argv: list[str]) -> list[str]:
    """The `key=value` of each `-S` in a `dvc exp run` command."""
    return [argv[i + 1] for i, arg in enumerate(argv) if arg == "-S"]


def applied_params(overrides: list[str]) -> dict:
    """params.yaml with `overrides` applied as `dvc exp run -S` applies them (an unknown key raises)."""
    from dvc.utils.hydra import apply_overrides

    with tempfile.TemporaryDirectory() as folder:
        params = Path(folder) / "params.yaml"
        shutil.copy(REPO / "params.yaml", params)
        apply_overrides(params, overrides)
        return yaml.safe_load(params.read_text(encoding="utf-8"))


def params_problems(overrides: list[str], where: str) -> list[str]:
    """Apply `overrides` to a copy of params.yaml as `dvc exp run -S` does (an unknown key is an
    error), then load every section the stages load."""
    from attention_lab.config import ConfigError, from_mapping

    try:
        data = applied_params(overrides)
    except Exception as exc:  # noqa: BLE001 - DVC's own error, with hydra's reason as its cause
        reason = str(exc.__cause__ or exc).splitlines()[0]
        return [f"{where}: -S {' '.join(overrides)}: {reason}"]
    problems = []
    for section, cls in stage_params_classes().items():
        try:
            from_mapping(cls, data.get(section), section)
        except ConfigError as exc:
            problems.append(f"{where}: {exc}")
    return problems


def set_params_problems(text: str) -> list[str]:
    """The `-S key=value` overrides in each inline code span of the prose, together (fenced blocks
    are checked command by command)."""
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    problems = []
    for span in re.findall(r"`([^`]+)`", prose):
        overrides = [f"{key}={value}" for key, value in re.findall(r"-S\s+([A-Za-z_][\w.]*)=(\S*)", span)]
        if overrides:
            problems += params_problems(overrides, f"`{' '.join(span.split())}`")
    return problems


# -- the programs ---------------------------------------------------------------------------------

def attention_lab_problems(argv: list[str], created: set[str]) -> list[str]:
    from attention_lab.cli import build_parser

    err = io.StringIO()
    try:
        with redirect_stderr(err), redirect_stdout(io.StringIO()):
            args = build_parser().parse_args(argv[1:])
    except SystemExit as exc:
        return [] if exc.code == 0 else [f"{shlex.join(argv)}: {err.getvalue().strip()}"]
    source = getattr(args, "input", None)
    if source not in (None, "-") and source not in created and not (REPO / source).is_file():
        return [f"{shlex.join(argv)}: --input {source} is neither in the repository nor written before"]
    return []


def dvc_problems(argv: list[str], experiments: set[str]) -> list[str]:
    from dvc.cli import parse_args

    err = io.StringIO()
    try:
        with redirect_stderr(err), redirect_stdout(io.StringIO()):
            args = parse_args(argv[1:])
    except (SystemExit, Exception) as exc:  # noqa: BLE001 - DvcParser raises its own error type
        return [f"{shlex.join(argv)}: dvc cannot parse it ({err.getvalue().strip() or exc!r})"]
    problems = []
    if getattr(args, "set_param", None):
        problems += params_problems(args.set_param, shlex.join(argv))
    if argv[1:3] == ["exp", "run"] and getattr(args, "name", None):
        experiments.add(args.name)
    if argv[1:3] in (["exp", "apply"], ["exp", "branch"]) and len(argv) > 3 and argv[3] not in experiments:
        problems.append(f"{shlex.join(argv)}: no `dvc exp run -n {argv[3]}` before it in the README")
    return problems


def mlflow_problems(argv: list[str]) -> list[str]:
    """Parse with MLflow's click commands, down to the leaf command, without invoking it."""
    import click
    from mlflow.cli import cli

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # click 8.2's protected_args
            ctx = cli.make_context("mlflow", argv[1:])
            command: click.Command = cli
            while isinstance(command, click.Group):
                name, command, rest = command.resolve_command(ctx, [*ctx.protected_args, *ctx.args])
                ctx = command.make_context(name, rest, parent=ctx)
    except click.ClickException as exc:
        return [f"{shlex.join(argv)}: {exc.format_message()}"]
    return []


def make_problems(argv: list[str]) -> list[str]:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([A-Za-z0-9_.-]+)\s*:(?!=)", makefile, flags=re.M))
    problems = []
    for word in argv[1:]:
        if "=" in word:
            variable = word.split("=", 1)[0]
            if not re.search(rf"\$\({variable}\)|^{variable}\s*[?:]?=", makefile, flags=re.M):
                problems.append(f"{shlex.join(argv)}: the Makefile never reads {variable}")
        elif word not in targets:
            problems.append(f"{shlex.join(argv)}: no target {word!r} in the Makefile")
    return problems


def command_problems(text: str) -> list[str]:
    problems = []
    created: set[str] = set()
    experiments: set[str] = set()
    for argv, outputs in bash_commands(text):
        program = argv[0]
        if program == "attention-lab":
            problems += attention_lab_problems(argv, created)
        elif program == "dvc":
            problems += dvc_problems(argv, experiments)
        elif program == "mlflow":
            problems += mlflow_problems(argv)
        elif program == "make":
            problems += make_problems(argv)
        elif program not in PROGRAMS:
            problems.append(f"{shlex.join(argv)}: {program!r} is no program this test knows how to check")
        created.update(outputs)
    for block in fenced_blocks(text, "python"):
        try:
            compile(block, "README.md", "exec")
        except SyntaxError as exc:
            problems.append(f"python block: {exc}")
    return problems + set_params_problems(text)


# -- files, layout, stages, length ------------------------------------------------------------------

def link_problems(text: str, base: Path = REPO) -> list[str]:
    """Markdown links and images to relative paths, and inline-code paths into the source folders."""
    problems = []
    for target in re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:|#", target):
            continue
        if not (base / target.split("#")[0]).exists():
            problems.append(f"link {target}: no such file")
    for path in re.findall(r"`((?:src|pipeline|tests|docs)/[^`\s*{}]+)`", text):
        if not (REPO / path).exists():
            problems.append(f"`{path}`: no such file")
    return problems


def layout_problems(text: str) -> list[str]:
    """The layout names exactly the package's subpackages and top-level modules, and what it names
    exists."""
    match = re.search(r"^## Layout\n.*?^```text\n(.*?)^```", text, flags=re.M | re.S)
    if not match:
        return ["no ```text block under ## Layout"]
    named: set[Path] = set()
    parent = REPO
    for line in match.group(1).splitlines():
        words = line.split()
        if not words or not words[0].endswith(("/", ".py")):
            continue
        if not line.startswith(" "):
            parent = REPO / words[0]
            named.add(parent)
        else:
            names = [w for w in words if w.endswith(".py")] if words[0].endswith(".py") else words[:1]
            named.update(parent / name for name in names)
    problems = [f"layout: {path.relative_to(REPO)} does not exist" for path in sorted(named) if not path.exists()]
    package = REPO / "src" / "attention_lab"
    present = {p.parent for p in package.glob("*/__init__.py")} | {
        p for p in package.glob("*.py") if p.name != "__init__.py"}
    problems += [f"layout: {path.relative_to(REPO)} is not listed" for path in sorted(present - named)]
    return problems


def stage_problems(text: str) -> list[str]:
    match = re.search(r"^## The pipeline\n(.*?)^## ", text, flags=re.M | re.S)
    if not match:
        return ["no ## The pipeline section"]
    listed = set(re.findall(r"^\| `([\w.]+)` \|", match.group(1), flags=re.M)) - {"data.dvc"}
    stages = set(yaml.safe_load((REPO / "dvc.yaml").read_text(encoding="utf-8"))["stages"])
    return ([f"pipeline table: no stage {name!r} in dvc.yaml" for name in sorted(listed - stages)]
            + [f"pipeline table: stage {name!r} is missing" for name in sorted(stages - listed)])


def length_problems(text: str) -> list[str]:
    lines = len(text.splitlines())
    return [f"README.md has {lines} lines, more than {MAX_LINES}"] if lines > MAX_LINES else []


def section(text: str, title: str) -> str:
    return text.split(f"\n## {title}\n", 1)[-1].split("\n## ", 1)[0] if f"\n## {title}\n" in text else ""


def limit_figures() -> list[tuple[str, float]]:
    """(a pattern around a figure of the README's Limits, the value the code enforces) for each."""
    from attention_lab.inference.translator import SearchParams
    from attention_lab.tracking import served_model

    fields = {f.name: f for f in dataclasses.fields(SearchParams)}
    return [(r"`max_source_chars` \((\S+) characters", SearchParams().max_source_chars),
            (r"`max_source_pieces` \((\S+) pieces", SearchParams().max_source_pieces),
            (r"`max_output_pieces` \((\S+)\)", SearchParams().max_output_pieces),
            (r"a beam is at most (\S+) wide", fields["beam_size"].metadata["bounds"]["le"]),
            (r"a request over\s+(\S+) source pieces", served_model.MAX_REQUEST_PIECES),
            (r"source pieces or (\S+) characters", served_model.MAX_REQUEST_CHARS),
            (r"a beam over (\S+),", served_model.MAX_BEAM),
            (r"over (\S+) s of reading", served_model.MAX_REQUEST_SECONDS)]


def limits_problems(text: str) -> list[str]:
    """Each figure of the Limits section against the constant that enforces it."""
    limits, problems = " ".join(section(text, "Limits").split()), []
    for pattern, value in limit_figures():
        found = re.search(pattern, limits)
        if not found:
            problems.append(f"Limits: nothing matches {pattern!r}")
        elif float(found.group(1).replace(",", "")) != value:
            problems.append(f"Limits: {found.group(0)!r}, but the code enforces {value:g}")
    return problems


# -- the README ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def readme() -> str:
    return README.read_text(encoding="utf-8")


def test_readme_is_short(readme):
    assert length_problems(readme) == []


def test_readme_limits_are_the_enforced_ones(readme):
    assert len(limit_figures()) == 8 and limits_problems(readme) == []


def test_readme_commands_parse_and_name_real_params_targets_and_files(readme):
    assert bash_commands(readme), "no ```bash block found"
    assert command_problems(readme) == []


def test_the_d2l_command_trains_d2ls_model_with_d2ls_optimiser(readme):
    # d2l's configuration is the dataclass defaults of the model and the optimiser: the README's
    # command must turn every params.yaml choice back into them (a key it forgets trains another model).
    from attention_lab.config import from_mapping
    from attention_lab.model.seq2seq import ModelParams
    from attention_lab.training.module import OptimParams
    from attention_lab.training.params import Seq2SeqParams

    [argv] = [argv for argv, _ in bash_commands(readme) if "d2l-seed" in argv]
    params = from_mapping(Seq2SeqParams, applied_params(set_values(argv))["train_seq2seq"], "train_seq2seq")
    rnn = replace(params.model, transformer=ModelParams().transformer)  # the Transformer's section plays no part
    assert rnn == ModelParams() and params.optim == OptimParams()


def test_the_reproduction_command_trains_the_committed_runs_updates_without_a_clock(readme):
    from attention_lab.config import from_mapping
    from attention_lab.training.params import Seq2SeqParams

    [argv] = [argv for argv, _ in bash_commands(readme) if "budget_updates" in " ".join(argv)]
    trainer = from_mapping(Seq2SeqParams, applied_params(set_values(argv))["train_seq2seq"], "train_seq2seq").trainer
    committed = json.loads((REPO / "reports/seq2seq/metrics.json").read_text(encoding="utf-8"))
    assert trainer.budget_minutes is None and trainer.budget_updates == committed["updates"]


def test_the_transformer_command_is_the_recipe_the_search_chose(readme):
    """The README's Transformer and the one docs/recipe.md chose and measured are the same command,
    and it trains a Transformer."""
    def transformer_commands(text: str) -> list[list[str]]:
        return [argv for argv, _ in bash_commands(text) if argv[:5] == ["dvc", "exp", "run", "-n", "transformer"]]

    [command] = transformer_commands(readme)
    assert transformer_commands((REPO / "docs/recipe.md").read_text(encoding="utf-8")) == [command]
    assert applied_params(set_values(command))["train_seq2seq"]["model"]["arch"] == "transformer"


def test_the_gpu_command_is_the_gpu_recipe_the_bench_and_the_card_runs_train(readme):
    """The README's `dvc exp run -n gpu` sets exactly `training/gpu_recipe.py`'s settings, which
    `attention-lab bench` and docs/scripts/gpu_runs.sh read from there."""
    from attention_lab.training import gpu_recipe

    prose = re.sub(r"^```.*?^```", "", readme, flags=re.M | re.S)
    [span] = [span for span in re.findall(r"`([^`]+)`", prose) if span.startswith("dvc exp run -n gpu ")]
    assert sorted(set_values(shlex.split(span))) == sorted(gpu_recipe.dvc_settings())
    assert applied_params(gpu_recipe.dvc_settings())["train_seq2seq"]["model"]["arch"] == "transformer"


def test_readme_links_and_paths_exist(readme):
    assert link_problems(readme) == []


def test_docs_links_exist():
    for note in sorted((REPO / "docs").glob("*.md")):
        assert link_problems(note.read_text(encoding="utf-8"), note.parent) == [], note.name


def test_readme_layout_and_stages_match_the_repository(readme):
    assert layout_problems(readme) == []
    assert stage_problems(readme) == []


# -- the checks fail on wrong text -----------------------------------------------------------------

def bash(*lines: str) -> str:
    return "```bash\n" + "\n".join(lines) + "\n```\n"


@pytest.mark.parametrize("text, expected", [
    (bash("dvc exp run -S train_seq2seq.model.hiden_size=384"), "hiden_size"),
    (bash("dvc exp run -S train_seq2seq.model.rnn=transformer"), "train_seq2seq.model.rnn"),
    (bash("dvc exp run -S evaluate.search.beam_size=0"), "evaluate.search.beam_size"),
    ("Prose too: `dvc exp run -S split.max_pair=600`.", "max_pair"),
    (bash("dvc exp run --qeue -S evaluate.search.beam_size=4"), "--qeue"),
    (bash("dvc exp apply never-run"), "never-run"),
    (bash("attention-lab translate --beam 0 'I lost.'"), "--beam"),
    (bash("echo Go. | attention-lab translat"), "translat"),
    (bash("attention-lab translate --input missing.txt"), "missing.txt"),
    (bash("mlflow models serve --modl x"), "--modl"),
    (bash("make repro CORPUS_DIR=../shared/data"), "CORPUS_DIR"),
    (bash("make reproduce"), "reproduce"),
    (bash("pip install attention-lab"), "pip"),
    ("```python\nmodel.predict(\n```\n", "python block"),
])
def test_command_checks_fail_on_wrong_commands(text, expected):
    problems = command_problems(text)
    assert any(expected in problem for problem in problems), problems


def test_command_checks_pass_right_commands():
    text = bash(
        "printf 'Go.\\n' > english.txt",
        "attention-lab translate --input english.txt --beam 4 --output french.txt  # a comment",
        "echo \"He's calm.\" | attention-lab translate --beam 1",
        "dvc exp run -n wide -S train_seq2seq.model.hidden_size=384 \\",
        "  -S train_seq2seq.trainer.budget_minutes=null",
        "dvc exp apply wide",
        "make repro CORPUS=../shared/data",
    )
    assert command_problems(text) == []


def test_file_layout_stage_and_length_checks_fail():
    assert link_problems("![x](docs/images/none.png) and [y](docs/nowhere.md)") == [
        "link docs/images/none.png: no such file", "link docs/nowhere.md: no such file"]
    assert link_problems("`src/attention_lab/nowhere.py`") == ["`src/attention_lab/nowhere.py`: no such file"]
    assert link_problems("[site](https://d2l.ai) [here](#layout)") == []
    layout = "## Layout\n\n```text\nsrc/attention_lab/\n  data/   text in\n  gone/   moved away\n```\n"
    problems = layout_problems(layout)
    assert "layout: src/attention_lab/gone does not exist" in problems
    assert "layout: src/attention_lab/model is not listed" in problems
    assert "layout: src/attention_lab/cli.py is not listed" in problems
    stages = "## The pipeline\n\n| stage |\n| --- |\n| `split` |\n| `splitt` |\n\n## Next\n"
    problems = stage_problems(stages)
    assert "pipeline table: no stage 'splitt' in dvc.yaml" in problems
    assert "pipeline table: stage 'train_tokenizer' is missing" in problems
    too_long = [f"README.md has {MAX_LINES + 1} lines, more than {MAX_LINES}"]
    assert length_problems("line\n" * (MAX_LINES + 1)) == too_long


def test_limits_check_fails_on_a_figure_the_code_does_not_enforce(readme):
    limits = section(readme, "Limits")
    wrong = readme.replace(limits, limits.replace("16,384", "20,000").replace("(512)", "(500)"))
    assert limits_problems(wrong) == ["Limits: '`max_output_pieces` (500)', but the code enforces 512",
                                      "Limits: 'a request over 20,000 source pieces', but the code enforces 16384"]
    assert len(limits_problems("## Limits\n\nNothing here.\n")) == 8
