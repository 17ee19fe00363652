"""Inference loads no training-only code: neither the training stack nor the hand-written backward."""

import subprocess
import sys

from conftest import REPO

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
