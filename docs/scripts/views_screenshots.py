"""Screenshots of what a user sees first, from a trained repository (docs/mlflow.md's pictures): MLflow's
training-runs view with the BLEU columns, a translator run's description and its charts, and the
`dvc plots show` page drawn offline (every request beyond loopback and local files refused).

    python docs/scripts/views_screenshots.py /path/to/trained/repo docs/images

Starts `mlflow ui` on loopback in that repository (its mlflow.db) and runs its `dvc plots show`.
Needs Debian's chromium (or CHROMIUM=path) and the test extras' playwright.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get_json(url: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def local_only(route) -> None:
    url = route.request.url
    local = urllib.parse.urlsplit(url).hostname in ("127.0.0.1", "localhost", "::1")
    route.continue_() if local or url.startswith(("file:", "data:", "blob:", "about:")) else route.abort()


def mlflow_shots(page, root: Path, out: Path) -> None:
    port = free_port()
    server = subprocess.Popen([str(BIN / "mlflow"), "ui", "--backend-store-uri", "sqlite:///mlflow.db", "--host",
                               "127.0.0.1", "--port", str(port), "--workers", "1"], cwd=root,
                              env={**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"{base}/health", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        experiment = get_json(f"{base}/api/2.0/mlflow/experiments/get-by-name?experiment_name=attention-lab")
        eid = experiment["experiment"]["experiment_id"]
        found = get_json(f"{base}/api/2.0/mlflow/runs/search",
                         {"experiment_ids": [eid], "filter": "tags.stage = 'train_seq2seq'", "max_results": 1})
        run_id = found["runs"][0]["info"]["run_id"]
        ml = "workflowType=machine_learning"
        shots = {"mlflow-training-runs.png": f"#/experiments/{eid}/runs?{ml}&viewStateShareKey=bleu",
                 "mlflow-run-description.png": f"#/experiments/{eid}/runs/{run_id}?{ml}",
                 "mlflow-run-charts.png": f"#/experiments/{eid}/runs/{run_id}/model-metrics?{ml}"}
        for name, fragment in shots.items():
            page.goto(f"{base}/{fragment}")
            page.wait_for_load_state("load")
            page.wait_for_timeout(8000)  # the UI polls (never network-idle); tables and charts draw after the data
            page.screenshot(path=out / name)
            print(out / name)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def dvc_shot(page, root: Path, out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([str(BIN / "dvc"), "plots", "show", "-o", tmp], cwd=root, check=True, capture_output=True)
        page.goto((Path(tmp) / "index.html").as_uri())
        page.wait_for_function("[...document.images].every(image => image.complete)", timeout=60_000)
        page.wait_for_timeout(2000)
        page.screenshot(path=out / "dvc-plots-offline.png")
        height = page.evaluate("document.documentElement.scrollHeight")
        charts = page.evaluate("document.querySelectorAll('.vega-embed .marks').length")
    print(out / "dvc-plots-offline.png", f"({charts} charts, page {height} px high)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repo", type=Path, help="a repository the pipeline ran in (mlflow.db, reports/)")
    parser.add_argument("out", type=Path, help="folder for the PNGs")
    parser.add_argument("--size", type=int, nargs=2, default=(1400, 1000), metavar=("WIDTH", "HEIGHT"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=os.environ.get("CHROMIUM") or shutil.which("chromium"))
        page = browser.new_page(viewport={"width": args.size[0], "height": args.size[1]})
        page.route("**/*", local_only)
        # MLflow's assistant panel opens by itself on a first visit and takes a third of the width.
        page.add_init_script("localStorage.setItem('mlflow.assistant.panelOpen_v1', 'false');"
                             "localStorage.setItem('mlflow.assistant.fab.autoOpenedOnFirstLoad_v1', 'true')")
        mlflow_shots(page, args.repo.resolve(), args.out.resolve())
        dvc_shot(page, args.repo.resolve(), args.out.resolve())
        browser.close()


if __name__ == "__main__":
    main()
