"""What the MLflow UI shows first: runs named and described for what they hold, metric names whose
prefixes put the learning curves first, and a saved runs-table view with the BLEU columns.

How MLflow 3.17's UI lays them out (its JavaScript bundle, read for 3.17.2):
- Charts: one per metric key, in sections named by the key's part before its last '/'. The named
  sections come in code-point order (upper case before lower case), then "Model metrics" (keys
  without a '/'), then "System metrics"; within a section, charts sort by key. A chart draws one
  metric until a user adds others in its edit dialog, so the artifact `figures/loss.png` draws
  training and validation loss on one axis. (An image logged under a section's prefix becomes a chart
  there, but its card lists the run's params over the picture: no help.)
- Runs table: the URL keeps the search only (searchFilter, orderByKey, orderByAsc, ...); the columns
  shown live in the browser's local storage, or in an experiment tag `mlflow.sharedViewState.<key>`
  that `?viewStateShareKey=<key>` loads (what the UI's Share button writes).
"""

from __future__ import annotations

import json
import os

LEARNING_CURVES = "learning curves"
# Lightning's keys (history.csv's columns come from them, unchanged) -> the names MLflow shows. Lightning's
# MLflow logger keeps only letters, digits and `_/. -` of a key. "learning curves" sorts before "model"
# (the kept model's single values) and "training" (throughput, the label-smoothed loss); the test scores,
# `test.beam.bleu`, have no '/' and so come after all of them.
METRIC_NAMES = {
    "val/bleu": f"{LEARNING_CURVES}/BLEU valid",
    "train/nll": f"{LEARNING_CURVES}/NLL train",
    "train/mean_nll": f"{LEARNING_CURVES}/NLL train mean",
    "val/loss": f"{LEARNING_CURVES}/NLL valid",
    "val/ppl": f"{LEARNING_CURVES}/perplexity valid",
    "train/loss": "training/loss trained on",
    "train/mean_loss": "training/loss trained on mean",
    "train/tokens_per_s": "training/target tokens per s",
    "train/seconds": "training/seconds",
    "epoch": "training/epoch",
}

TITLES = {"train_seq2seq": "translator", "train_nw": "nadaraya-watson"}
NOTE_TAG = "mlflow.note.content"  # the run page's Description
SHARED_VIEW_KEY = "bleu"
SHARED_VIEW_TAG = f"mlflow.sharedViewState.{SHARED_VIEW_KEY}"
TABLE_METRICS = ("test.beam.bleu", "test.beam.chrf", "test.greedy.bleu", "model/val_bleu")


def mlflow_metric_name(key: str) -> str:
    return METRIC_NAMES.get(key, key)


def run_name(stage: str, *details: str) -> str:
    """`translator · rnn · NAME` for DVC experiment NAME (`dvc exp run -n NAME` or the name DVC made
    up), `nadaraya-watson · NAME`, `evaluate · NAME`; without an experiment, the part before it."""
    parts = [TITLES.get(stage, stage), *details, os.environ.get("DVC_EXP_NAME") or ""]
    return " · ".join(part for part in parts if part)


def _experiment() -> str:
    name = os.environ.get("DVC_EXP_NAME")
    return f", DVC experiment `{name}`" if name else ""


def note(stage: str, arch: str | None = None) -> str:
    """The run page's description of a run of `stage`: what it holds and where its pages are."""
    if stage == "train_seq2seq":
        return (f"**English→French translator** (`{arch or 'seq2seq'}`), trained by DVC stage `train_seq2seq`"
                f"{_experiment()}.\n\n"
                f"- Model metrics: section *{LEARNING_CURVES}* first (greedy BLEU on a valid sample, training "
                "and validation NLL against updates); Artifacts → `figures/loss.png` draws training and validation "
                "loss on one axis.\n"
                "- Test scores (`test.beam.bleu`, `test.beam.chrf`, `test.greedy.*`) come from stage `evaluate`; "
                "each evaluation is also a child run (`evaluate · …`).\n"
                "- Translations: Artifacts → `evaluate/translations.json` (a table).\n"
                "- Attention explorer: Artifacts → `heatmaps/explorer.html`; heatmaps beside it.\n"
                "- Logged model `translator`: `attention-lab promote RUN_ID` registers it.")
    if stage == "train_nw":
        return ("**Nadaraya-Watson kernel regression** (d2l §11.2), DVC stage `train_nw`"
                f"{_experiment()}: a toy regression of y = 2 sin(x) + x^0.8, not the translator. Metrics: each "
                "kernel's test error and bandwidth; `train/loss`: the learned Gaussian width's SGD. Figures: "
                "Artifacts → `figures/`.")
    what = {"evaluate": "test BLEU and chrF, the translations table (Artifacts → `evaluate/translations.json`)",
            "heatmaps": "attention heatmaps and the explorer (Artifacts → `heatmaps/explorer.html`)"}
    return (f"Stage `{stage}`{_experiment()} against its parent translator run: "
            f"{what.get(stage, 'its outputs')}. The parent shows the latest of these.")


def shared_view() -> str:
    """The runs-table view `?viewStateShareKey=bleu` opens: the test and valid BLEU and chrF columns
    (keys as the UI writes them: metrics.`name`), newest run first: sorted by a metric, the table lists
    the evaluations' child runs beside the training runs instead of under them. No Source, Models
    or Dataset column: the table draws only the columns its width holds, and at 1400 px with the
    UI's assistant panel open those pushed the last BLEU columns out of sight."""
    columns = [f"metrics.`{key}`" for key in TABLE_METRICS]
    # Widths apply to the columns the order lists (AG Grid's column ids): the run name gets room for
    # `translator · transformer · NAME`, which the default width cuts after the architecture.
    order = ["0", "attributes.`Run Name`", "runDateAndNestInfo", "duration", *columns]
    return json.dumps({"orderByKey": "attributes.start_time", "orderByAsc": False, "selectedColumns": columns,
                       "columnOrder": order, "columnWidths": {"attributes.`Run Name`": 320}})
