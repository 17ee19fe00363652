"""End to end: the real `dvc repro`, `dvc exp run` (a Transformer, and queued runs in parallel),
`dvc plots`, `mlflow ui` and a SIGKILLed training, on a tiny generated corpus in a temporary git
copy of the repository (CPU only, a few minutes). Each path is run once: `mlflow models serve` and
`mlflow server` are tests/test_registry.py's and tests/test_tracking.py's."""

import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

import mlflow
import pandas as pd
import pytest
import torch
import yaml
from browser import WatchedPage, browser
from conftest import REPO, TINY_TRAINING, TINY_VOCAB
from corpus_factory import write_zip
from nw_factory import KERNELS
from servers import NO_JOBS, free_port, without_tracking_env
from mlflow import MlflowClient
from playwright.sync_api import expect

from attention_lab.data.splits import word_count
from attention_lab.evaluation.explorer import read_page_data
from attention_lab.evaluation.report import bucket_label
from attention_lab.inference.translator import Translator
from attention_lab.tracking.store import fluent_tracking_uri

pytestmark = pytest.mark.e2e

TINY_PARAMS = {
    "corpus": {"sha256": None},
    "split": {"valid_fraction": 0.1, "test_fraction": 0.1},
    "train_tokenizer": TINY_VOCAB,
    "train_nw": {"repeats": 2, "bandwidth_steps": 11},
    "train_seq2seq": {**TINY_TRAINING,
                      "model": {**TINY_TRAINING["model"], "embed_size": 16, "hidden_size": 16, "io_dropout": 0.0},
                      "trainer": {"max_epochs": 3, "budget_minutes": None, "progress_bar": False,
                                  "log_every_n_steps": 2}},
    "evaluate": {"search": {"beam_size": 3}},
    "heatmaps": {"sentences": ["I see the cat.", "We like the book."], "test_sample": 3},
}


def merge(base: dict, override: dict) -> dict:
    return {**base, **{k: merge(base.get(k, {}), v) if isinstance(v, dict) else v for k, v in override.items()}}


def run(args, cwd, env, check=True, timeout=600):
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check:
        assert result.returncode == 0, f"{args}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A git repository holding this project's files, its params shrunk for the tiny corpus, and its
    `corpus` remote pointed (in .dvc/config.local) at a folder with a generated fra-eng.zip."""
    root = tmp_path_factory.mktemp("repo")
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.split()
    for name in listed:
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    # As committed: unpinned, so the import downloads (a local run may have pinned the working copy).
    committed = subprocess.run(["git", "show", "HEAD:data.dvc"], cwd=REPO, capture_output=True, text=True, check=True)
    (root / "data.dvc").write_text(committed.stdout)
    params = yaml.safe_load((root / "params.yaml").read_text())
    (root / "params.yaml").write_text(yaml.safe_dump(merge(params, TINY_PARAMS), sort_keys=False))
    env = without_tracking_env()
    env["OMP_NUM_THREADS"] = "1"  # tiny models; two threads on a busy 2-core machine spin
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # `python` in dvc.yaml = this venv
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    for args in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "tiny"]):
        run(args, root, env)
    remote = write_zip(tmp_path_factory.mktemp("remote") / "fra-eng.zip").parent
    run(["dvc", "remote", "modify", "--local", "corpus", "url", str(remote)], root, env)
    return root, env


def rows_of(spec) -> list[dict]:
    """The data rows anywhere in a rendered vega-lite spec (DVC puts them in data, layers or datasets)."""
    if isinstance(spec, dict):
        if "rev" in spec:
            return [spec]
        return [row for value in spec.values() for row in rows_of(value)]
    if isinstance(spec, list):
        return [row for value in spec for row in rows_of(value)]
    return []


def seq2seq_runs(root):
    client = MlflowClient(f"sqlite:///{root / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("attention-lab")
    return client, client.search_runs([experiment.experiment_id], "tags.stage = 'train_seq2seq'",
                                      order_by=["attributes.start_time ASC"])


def test_repro_with_the_tracking_server_down_fails_in_seconds_before_training(repo):
    """First in this module: nothing is trained yet. Nothing listens on the URI's port."""
    root, env = repo
    uri = f"http://127.0.0.1:{free_port()}"
    start = time.monotonic()
    failed = run(["dvc", "repro"], root, {**env, "MLFLOW_TRACKING_URI": uri}, check=False)
    seconds = time.monotonic() - start
    assert failed.returncode != 0
    errors = [line for line in failed.stderr.splitlines() if line.startswith("error: ")]
    assert errors and errors[0].startswith(f"error: MLflow tracking URI '{uri}' is unreachable"), failed.stderr
    assert "Running stage 'train_seq2seq'" not in failed.stdout and not (root / "models").exists()
    assert seconds < 120, seconds  # the stages before training, then the check: no minutes of retries


def test_repro_runs_every_stage(repo):
    root, env = repo
    printed = run(["dvc", "repro"], root, env)
    # Each stage prints its own progress and results: no library banner, tip, model table or warning.
    for noise in ("Tip:", "GPU available", "FLOPs", "Warning", "deprecated", "Downloading artifacts", "INFO", "\x1b["):
        assert noise not in printed.stdout + printed.stderr, noise
    for path in ("artifacts/splits/train.parquet", "artifacts/tokenizer/tokenizer.json", "models/nw/parametric.pt",
                 "models/seq2seq/model.pt", "reports/evaluate/translations.tsv", "reports/heatmaps/grid.png",
                 "reports/heatmaps/explorer.html", "reports/nw/figures/fit_gaussian.png"):
        assert (root / path).is_file(), path
    assert "md5:" in (root / "data.dvc").read_text()  # the import pinned the corpus it downloaded
    history = (root / "reports/seq2seq/history.csv").read_text().splitlines()
    validations = yaml.safe_load((root / "params.yaml").read_text())["train_seq2seq"]["trainer"]["validations"]
    assert len(history) == 1 + validations
    evaluation = json.loads((root / "reports/evaluate/metrics.json").read_text())
    test = yaml.safe_load((root / "reports/split.json").read_text())["splits"]["test"]
    assert evaluation["sources"] == test["sources"] and evaluation["unk_in_outputs"] == 0
    assert len(evaluation["d2l_examples"]) == 4
    translations = (root / "reports/evaluate/translations.tsv").read_text().splitlines()
    assert len(translations) == test["sources"] + 1 and "<unk>" not in "\n".join(translations)
    assert "up to date" in run(["dvc", "status"], root, env).stdout
    client, runs = seq2seq_runs(root)
    assert len(runs) == 1
    run_ = runs[0]
    assert {"learning curves/BLEU valid", "training/loss trained on", "test.beam.bleu", "test.greedy.chrf"} \
        <= set(run_.data.metrics)
    # Named and described for what it is, apart from the Nadaraya-Watson run; a figure draws both losses.
    assert run_.info.run_name == "translator · rnn"
    assert "heatmaps/explorer.html" in run_.data.tags["mlflow.note.content"]
    assert "figures/loss.png" in {a.path for a in client.list_artifacts(run_.info.run_id, "figures")}
    # Settings and counts are tags, not single-point metric charts.
    assert not {"test.sources", "test.references", "test.beam.beam_size"} & set(run_.data.metrics)
    assert run_.data.tags["test.beam.beam_size"] == "3" and run_.data.tags["test.sources"] == str(test["sources"])
    assert run_.data.tags["test.decoding"] == evaluation["decoding"] == "float32"  # the default rnn: `auto` is float32
    # Every validation is a point of MLflow's curves, at history.csv's steps.
    steps = [int(line.split(",")[0]) for line in history[1:]]
    assert sorted(m.step for m in client.get_metric_history(run_.info.run_id, "learning curves/BLEU valid")) == steps
    heatmaps = {a.path for a in client.list_artifacts(run_.info.run_id, "heatmaps")}
    assert {"heatmaps/grid.png", "heatmaps/explorer.html"} <= heatmaps
    # Each stage's child run is named for its stage, and holds its files too.
    children = client.search_runs([run_.info.experiment_id], f"tags.mlflow.parentRunId = '{run_.info.run_id}'")
    assert sorted(c.info.run_name for c in children) == ["evaluate", "heatmaps"]
    assert all(c.data.tags["mlflow.note.content"].startswith(f"Stage `{c.info.run_name}`") for c in children)
    child = next(c for c in children if c.info.run_name == "heatmaps")
    assert "heatmaps/explorer.html" in {a.path for a in client.list_artifacts(child.info.run_id, "heatmaps")}
    explorer = read_page_data((root / "reports/heatmaps/explorer.html").read_text(encoding="utf-8"))
    groups = [s["group"] for s in explorer["sentences"]]
    assert groups[:2] == ["your sentences (params heatmaps.sentences)"] * 2
    # Then, per length bucket of the test split, its 3 worst and 3 best (fewer where a bucket is small), each once.
    sampled = [(s["source"], s["group"]) for s in explorer["sentences"][2:]]
    assert sampled and len({source for source, _ in sampled}) == len(sampled)
    assert all(re.fullmatch(r"test split, (1-5|6-10|11-20|21\+) words: (worst|best) chrF \(beam\)", g) for _, g in sampled)
    tested = pd.read_csv(root / "reports/evaluate/translations.tsv", sep="\t", keep_default_na=False)["source"]
    sizes = Counter(bucket_label(word_count(source), (5, 10, 20)) for source in tested)
    shown = Counter(g for _, g in sampled)
    for label, size in sizes.items():
        assert shown[f"test split, {label} words: worst chrF (beam)"] == min(size, 3)
        assert shown[f"test split, {label} words: best chrF (beam)"] == min(max(size - 3, 0), 3)
    assert dict(explorer["identity"])["test BLEU, beam (greedy)"] == \
        f"{evaluation['beam']['bleu']} ({evaluation['greedy']['bleu']})"
    nw = client.search_runs([run_.info.experiment_id], "tags.stage = 'train_nw'")
    assert len(nw) == 1 and "gaussian.mse_truth" in nw[0].data.metrics
    assert nw[0].info.run_name == "nadaraya-watson" and "Nadaraya-Watson" in nw[0].data.tags["mlflow.note.content"]


def test_the_nw_stage_wrote_metrics_figures_models_and_one_mlflow_run(repo):
    root, _ = repo
    params = yaml.safe_load((root / "params.yaml").read_text())["train_nw"]
    metrics = json.loads((root / "reports/nw/metrics.json").read_text())
    estimators = ["average", *KERNELS, "parametric"]
    assert list(metrics) == [*estimators, "summary"]
    for name in estimators:
        assert {"mse_truth", "mse_noisy"} <= set(metrics[name])
        for metric in ("mse_truth", "mse_noisy"):
            stats = metrics["summary"][name][metric]
            assert math.isfinite(stats["mean"]) and stats["std"] >= 0
    for kernel in KERNELS:
        assert 0.01 <= metrics[kernel]["bandwidth"] <= 10 and math.isfinite(metrics[kernel]["loo_mse"])
        assert metrics[kernel]["mse_truth"] < metrics["average"]["mse_truth"]
    assert math.isfinite(metrics["parametric"]["w"])

    figures = {path.name for path in (root / "reports/nw/figures").iterdir()}
    expected = ({f"fit_{name}.png" for name in estimators} | {f"attention_{name}.png" for name in estimators}
                | {"loss_parametric.png", "loo_cv.png", "scoring_additive.png", "scoring_scaled_dot.png"})
    assert figures == expected
    for name in expected:
        assert (root / "reports/nw/figures" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    state = torch.load(root / "models/nw/parametric.pt", weights_only=True)
    assert state["x_train"].shape == (params["n_train"],)
    assert math.isclose(float(state["w"]), metrics["parametric"]["w"], rel_tol=1e-6)
    saved = json.loads((root / "models/nw/estimators.json").read_text())
    assert saved["bandwidths"] == {kernel: metrics[kernel]["bandwidth"] for kernel in KERNELS}

    client = MlflowClient(f"sqlite:///{root / 'mlflow.db'}")
    [run_] = client.search_runs([client.get_experiment_by_name("attention-lab").experiment_id],
                                "tags.stage = 'train_nw'")
    assert run_.info.status == "FINISHED" and run_.data.params["train_nw.n_train"] == str(params["n_train"])
    assert math.isclose(run_.data.metrics["gaussian.mse_truth"], metrics["gaussian"]["mse_truth"], rel_tol=1e-6)
    assert math.isclose(run_.data.metrics["summary.parametric.mse_noisy.mean"],
                        metrics["summary"]["parametric"]["mse_noisy"]["mean"], rel_tol=1e-6)
    assert len(client.get_metric_history(run_.info.run_id, "train/loss")) == params["epochs"]
    assert {Path(a.path).name for a in client.list_artifacts(run_.info.run_id, "figures")} == expected


def test_metrics_and_plots_commands(repo, tmp_path):
    root, env = repo
    shown = json.loads(run(["dvc", "metrics", "show", "--json"], root, env).stdout)
    files = next(iter(shown.values()))["data"]
    assert "bleu" in files["reports/evaluate/metrics.json"]["data"]["beam"]
    assert files["reports/seq2seq/metrics.json"]["data"]["epochs"] == 3
    run(["dvc", "plots", "show", "-o", str(tmp_path / "plots")], root, env)
    html = (tmp_path / "plots" / "index.html").read_text()
    assert "Validation BLEU" in html and "grid.png" in html and "-heads-" not in html
    # Every plot reads files a stage writes, with the columns it names.
    dvc_yaml = yaml.safe_load((root / "dvc.yaml").read_text())
    outs = {next(iter(o)) if isinstance(o, dict) else o for stage in dvc_yaml["stages"].values()
            for o in stage.get("outs", [])}
    for plot in dvc_yaml["plots"]:
        if isinstance(plot, str):  # an image, or a folder of them
            assert any(plot == out or plot.startswith(out + "/") for out in outs), plot
            assert (root / plot).exists(), plot
            continue
        [(title, spec)] = plot.items()
        for path, columns in spec["y"].items():
            assert path in outs, (title, path)
            header = (root / path).read_text().splitlines()[0].split(",")
            assert {spec["x"], *([columns] if isinstance(columns, str) else columns)} <= set(header), (title, path)
    # The length buckets in length order (1-4 ... 14+), as evaluate writes them, not sorted as text.
    shown = json.loads(run(["dvc", "plots", "show", "--json"], root, env).stdout)
    [bars] = shown["data"]["BLEU by source length"]
    labels = [row["source_words"] for row in bars["content"]["data"]["values"]]
    written = (root / "reports/evaluate/bleu_by_length.csv").read_text().splitlines()[1:]
    assert labels == [line.split(",")[0] for line in written]
    lows = [int(label.split("-")[0].rstrip("+")) for label in labels]
    assert len(labels) >= 2 and lows == sorted(lows) and bars["content"]["encoding"]["y"]["sort"] is None


def test_a_transformer_experiment_runs_every_stage_and_its_model_translates_everywhere(repo):
    """`dvc exp run -S train_seq2seq.model.arch=transformer` (sizes shrunk for the tiny corpus) runs
    every stage; `dvc exp show` and `dvc plots diff` set it beside the committed run; and its model
    is the one `attention-lab translate` and the logged MLflow model use (the served model's HTTP
    path is tests/test_registry.py's). The tests after it find a Transformer in the workspace."""
    root, env = repo
    run(["git", "add", "-A"], root, env)
    run(["git", "commit", "-qm", "first run"], root, env)
    changes = ["arch=transformer", "transformer.layers=1", "transformer.heads=2", "transformer.model_size=16",
               "transformer.ffn_size=32"]
    result = run(["dvc", "exp", "run", "-n", "transformer",
                  *(a for change in changes for a in ("-S", f"train_seq2seq.model.{change}"))], root, env)
    for stage in ("train_seq2seq", "evaluate", "heatmaps"):
        assert f"Running stage '{stage}'" in result.stdout, result.stdout[-2000:]
    rows = json.loads(run(["dvc", "exp", "show", "--json"], root, env).stdout)
    baseline = next(row for row in rows if row["experiments"])  # the commit, after the workspace row
    experiment = next(e for e in baseline["experiments"] if e["name"] == "transformer")["revs"][0]
    data = lambda row: row["data"]["params"]["params.yaml"]["data"]  # noqa: E731
    assert data(baseline)["train_seq2seq"]["model"]["arch"] == "rnn"
    assert data(experiment)["train_seq2seq"]["model"]["arch"] == "transformer"
    metrics = lambda row: row["data"]["metrics"]["reports/seq2seq/metrics.json"]["data"]  # noqa: E731
    assert metrics(baseline)["train_loss"] != metrics(experiment)["train_loss"]
    assert metrics(experiment)["val_bleu"] >= 0
    _, runs = seq2seq_runs(root)
    assert len(runs) == 2 and runs[1].data.tags.get("dvc_experiment") == "transformer"
    # `dvc plots diff` overlays the two runs' curves on one chart, a point per validation each.
    diff = json.loads(run(["dvc", "plots", "diff", "HEAD", "transformer", "--json"], root, env).stdout)
    [chart] = diff["data"]["Validation BLEU"]
    points = [row for row in rows_of(chart["content"]) if "val_bleu" in row]
    revisions = {row["rev"] for row in points}
    assert len(revisions) == 2 and any("transformer" in rev for rev in revisions), revisions
    validations = yaml.safe_load((root / "params.yaml").read_text())["train_seq2seq"]["trainer"]["validations"]
    assert all(sum(row["rev"] == rev for row in points) == validations for rev in revisions)
    assert isinstance(json.loads((root / "reports/evaluate/metrics.json").read_text())["beam"]["bleu"], float)
    heatmaps = sorted(p.name for p in (root / "reports/heatmaps").iterdir())
    assert "00-i-see-the-cat-heads-beam.png" in heatmaps and "00-i-see-the-cat-heads-greedy.png" in heatmaps
    explorer = read_page_data((root / "reports/heatmaps/explorer.html").read_text(encoding="utf-8"))
    assert explorer["layout"] == [1, 2] and all(s["encoder"] and r["decoder"] for s in explorer["sentences"]
                                                for r in s["results"])

    model_dir = root / "models/seq2seq"
    sentences = ["I see the cat.", "We like the book."]
    translator = Translator.load(model_dir, "cpu")
    assert translator.model.params.arch == "transformer"
    expected = [t.text for t in translator.translate(sentences)]
    translated = run(["attention-lab", "translate", "--model", str(model_dir), *sentences], root, env)
    assert translated.stdout.splitlines() == expected
    model_id = json.loads((model_dir / "mlflow_run.json").read_text())["model_id"]
    with fluent_tracking_uri(f"sqlite:///{root / 'mlflow.db'}"):  # and back as it was, for the tests after
        predictions = mlflow.pyfunc.load_model(f"models:/{model_id}").predict(pd.DataFrame({"text": sentences}))
    assert list(predictions["translation"]) == expected


def tasks_done(root) -> int:
    """The queued experiments whose task has ended (succeeded or failed), as the result files of DVC's
    celery queue have them: reading those costs nothing."""
    done = 0
    for path in (root / ".dvc/tmp/exps/celery/result").glob("celery-task-meta-*"):
        try:
            done += json.loads(path.read_text())["status"] in ("SUCCESS", "FAILURE", "REVOKED")
        except (OSError, ValueError, KeyError):  # one being written
            pass
    return done


def test_evaluate_only_experiments_never_retrain(repo, tmp_path):
    """Two queued experiments run in parallel (each in a temporary copy) restore the trained model
    from DVC's run cache: MLflow gains no training run, and `dvc exp show` lists both with their BLEU."""
    root, env = repo
    run(["git", "add", "-A"], root, env)
    run(["git", "commit", "-qm", "baseline for evaluate-only experiments", "--allow-empty"], root, env)
    _, before = seq2seq_runs(root)
    for name, change in (("greedy", "evaluate.search.beam_size=1"), ("short", "evaluate.search.length_penalty=0.6")):
        run(["dvc", "exp", "run", "--queue", "-n", name, "-S", change], root, env)
    # `queue start` leaves daemonized workers holding its stdout and stderr: read through pipes,
    # the call lasts as long as they do, and a worker that hung in its own shutdown once held this
    # test for the whole timeout after both experiments had succeeded. They write to a file instead.
    with open(tmp_path / "queue-start.log", "w") as log:
        subprocess.run(["dvc", "queue", "start", "-j", "2"], cwd=root, env=env, stdout=log,
                       stderr=subprocess.STDOUT, check=True, timeout=120)
    # `dvc queue status` is a DVC start-up, seconds of CPU beside the experiments' own: it is asked when
    # the queue's task results say both are done, and every 30 s in case those files say nothing.
    deadline, asked = time.time() + 600, 0.0
    while time.time() < deadline:
        if tasks_done(root) >= 2 or time.time() - asked > 30:
            asked = time.time()
            status = run(["dvc", "queue", "status"], root, env).stdout
            if "Queued" not in status and "Running" not in status:
                break
        time.sleep(2)
    assert "Failed" not in status, status + run(["dvc", "queue", "logs", "greedy"], root, env, check=False).stdout
    _, after = seq2seq_runs(root)
    assert len(after) == len(before)  # no experiment trained
    rows = json.loads(run(["dvc", "exp", "show", "--json"], root, env).stdout)
    experiments = {e["name"]: e["revs"][0] for row in rows for e in (row.get("experiments") or []) if e.get("name")}
    assert {"greedy", "short"} <= set(experiments)
    search = lambda rev: rev["data"]["params"]["params.yaml"]["data"]["evaluate"]["search"]  # noqa: E731
    bleu = lambda rev: rev["data"]["metrics"]["reports/evaluate/metrics.json"]["data"]["beam"]["bleu"]  # noqa: E731
    assert search(experiments["greedy"])["beam_size"] == 1 and search(experiments["short"])["length_penalty"] == 0.6
    assert all(isinstance(bleu(experiments[n]), float) for n in ("greedy", "short"))


def test_dvc_plots_draw_every_chart_offline_and_images_fit_the_page(repo, tmp_path):
    """`dvc plots show` fills .dvc/plots/offline.html (plots.html_template in .dvc/config), Vega inlined:
    with every request beyond loopback and local files refused, each chart of dvc.yaml draws (an svg
    or canvas with a height), and no image runs past a 1400-px window."""
    root, env = repo
    run(["dvc", "plots", "show", "-o", str(tmp_path / "plots")], root, env)
    index = tmp_path / "plots" / "index.html"
    assert "cdn.jsdelivr" not in index.read_text()
    charts = sum(isinstance(plot, dict) for plot in yaml.safe_load((root / "dvc.yaml").read_text())["plots"])
    refused = []

    def local_only(route):
        url = route.request.url
        if url.startswith(("file:", "data:", "blob:", "about:")) or \
                urllib.parse.urlsplit(url).hostname in ("127.0.0.1", "localhost", "::1"):
            route.continue_()
        else:
            refused.append(url)
            route.abort()

    with browser() as chrome:
        watched = WatchedPage(chrome, width=1400, height=1000)
        page = watched.page
        page.route("**/*", local_only)
        page.goto(index.as_uri())
        page.wait_for_function("[...document.images].every(image => image.complete)", timeout=60_000)
        page.wait_for_timeout(1000)  # vega-embed draws asynchronously
        # A Vega view draws into one canvas (or svg) of class `marks`; vega-embed's menu icon is another svg.
        heights = page.eval_on_selector_all(
            ".vega-embed", "boxes => boxes.map(box => (box.querySelector('.marks') || {getBoundingClientRect: "
            "() => ({height: 0})}).getBoundingClientRect().height)")
        widest = page.evaluate("Math.max(...[...document.images].map(image => image.getBoundingClientRect().right))")
        page_width = page.evaluate("document.documentElement.scrollWidth")
    assert len(heights) == charts and all(height > 0 for height in heights), (heights, refused, watched.errors)
    assert widest <= 1400 and page_width <= 1400
    assert not watched.errors and not refused


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def test_mlflow_ui_serves_the_run(repo):
    """The README's `mlflow ui` command, on loopback, answers MLflow's REST API with the run."""
    root, env = repo
    port = free_port()
    server = subprocess.Popen([str(Path(sys.executable).parent / "mlflow"), "ui", "--backend-store-uri",
                               "sqlite:///mlflow.db", "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
                              cwd=root, env={**env, **NO_JOBS}, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{base}/health", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        experiment = get_json(f"{base}/api/2.0/mlflow/experiments/get-by-name?experiment_name=attention-lab")
        experiment_id = experiment["experiment"]["experiment_id"]
        request = urllib.request.Request(
            f"{base}/api/2.0/mlflow/runs/search", method="POST", headers={"Content-Type": "application/json"},
            data=json.dumps({"experiment_ids": [experiment_id],
                             "filter": "tags.stage = 'train_seq2seq'"}).encode())
        with urllib.request.urlopen(request, timeout=10) as response:
            found = json.loads(response.read())["runs"]
        run_ = found[0]
        assert any(m["key"] == "test.beam.bleu" for m in run_["data"]["metrics"])
        listed = get_json(f"{base}/api/2.0/mlflow/artifacts/list?run_id={run_['info']['run_id']}&path=heatmaps")
        assert any(f["path"].endswith("grid.png") for f in listed["files"])
        # The explorer page works in the UI's artifact view, a sandboxed frame: hovering a cell names its weight.
        with browser() as chrome:
            view = WatchedPage(chrome).page
            view.goto(f"{base}/#/experiments/{experiment_id}/runs/{run_['info']['run_id']}"
                      "/artifacts/heatmaps/explorer.html")
            frame = view.frame_locator("iframe.mlflow-html-iframe")
            frame.locator('.panel td[data-row="0"][data-col="0"]').first.hover(timeout=60_000)
            expect(frame.locator("#tooltip .weight")).to_have_text(re.compile(r"^[01]\.\d{3}$"))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def test_a_forced_repro_trains_afresh_and_resumes_after_a_kill(repo, tmp_path):
    """`dvc repro -f` after a finished run must train a fresh run, not "resume" the finished one and
    fail on missing reports (a crash this project once had; a code change is tests/test_training.py's).
    Killed with dvc mid-epoch, that run resumes on the next `dvc repro`: the same MLflow run, the
    planned validations, none twice. The 3 epochs of the Transformer experiment's config."""
    root, env = repo
    _, before = seq2seq_runs(root)
    params = yaml.safe_load((root / "params.yaml").read_text())["train_seq2seq"]["trainer"]
    history, last = root / "reports/seq2seq/history.csv", root / "models/seq2seq/.resume/last.ckpt"
    started = time.time()
    with open(tmp_path / "forced.log", "w") as log:
        process = subprocess.Popen(["dvc", "repro", "-f", "-s", "train_seq2seq"], cwd=root, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 300
        while time.time() < deadline and process.poll() is None:  # its third validation and a checkpoint of its own
            fresh = last.exists() and last.stat().st_mtime > started and history.stat().st_mtime > started
            if fresh and 4 <= len(history.read_text().splitlines()) < 12:
                break
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGKILL)  # dvc and the training process
        process.wait()
    forced = (tmp_path / "forced.log").read_text()
    assert "Running stage 'train_seq2seq'" in forced and "Resuming" not in forced, forced[-3000:]
    killed_at = len(history.read_text().splitlines()) - 1
    assert 3 <= killed_at < params["validations"], forced[-3000:]
    interrupted = json.loads((root / "models/seq2seq/.resume/run.json").read_text())["mlflow_run_id"]
    assert interrupted not in {r.info.run_id for r in before}  # a run of its own, not the finished one's
    result = run(["dvc", "repro", "train_seq2seq"], root, env)
    assert "Resuming the interrupted run of this code, config and data" in result.stderr
    assert json.loads((root / "models/seq2seq/mlflow_run.json").read_text())["run_id"] == interrupted
    _, after = seq2seq_runs(root)
    assert [r.info.run_id for r in after] == [r.info.run_id for r in before] + [interrupted]
    assert after[-1].info.status == "FINISHED"
    metrics = json.loads((root / "reports/seq2seq/metrics.json").read_text())
    steps = [int(line.split(",")[0]) for line in history.read_text().splitlines()[1:]]
    # Continued, not restarted, and no validation twice: the planned steps, the last where training ended.
    assert steps == [math.ceil(k * metrics["updates"] / params["validations"])
                     for k in range(1, params["validations"] + 1)]
    assert metrics["epochs"] == params["max_epochs"]
    assert not (root / "models/seq2seq/.resume").exists()
    leftovers = [p for p in root.rglob("*.tmp") if ".dvc" not in p.parts and ".git" not in p.parts]
    assert not leftovers
    assert "up to date" in run(["dvc", "status", "train_seq2seq"], root, env).stdout
