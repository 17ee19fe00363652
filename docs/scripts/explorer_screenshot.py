"""A screenshot of the attention explorer page as headless Chromium shows it (the README's and
docs/explorer.md's pictures), with a sentence, a kind of attention, a layer and a head chosen and the
pointer on one cell; or of the page inside MLflow's artifact view, given that view's URL.

    python docs/explorer_screenshot.py reports/heatmaps/explorer.html docs/images/explorer-rnn.png \
        --sentence "She is taller than her brother." --cell 3 5
    python docs/explorer_screenshot.py reports/heatmaps/explorer.html docs/images/explorer-transformer.png \
        --sentence "I don't know what to do." --kind cross --layer 2 --head 3 --cell 4 6
    python docs/explorer_screenshot.py "http://127.0.0.1:5000/#/experiments/1/runs/RUN/artifacts/heatmaps/explorer.html" \
        docs/images/explorer-in-mlflow.png --frame --cell 2 2

Needs Debian's chromium (or CHROMIUM=path) and the test extras' playwright.
"""

import argparse
import os
import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("page", help="the page's file, or an MLflow UI URL with --frame")
    parser.add_argument("out", type=Path, help="PNG to write")
    parser.add_argument("--sentence", help="the source to select (default: the first)")
    parser.add_argument("--kind", choices=("cross", "encoder", "decoder"), default="cross")
    parser.add_argument("--layer", type=int, help="1-based; default: all layers' average")
    parser.add_argument("--head", type=int, help="1-based; default: all heads' average")
    parser.add_argument("--cell", type=int, nargs=2, metavar=("ROW", "COL"), help="the cell to point at (0-based)")
    parser.add_argument("--panel", type=int, default=1, help="0: greedy, 1: beam (default)")
    parser.add_argument("--frame", action="store_true", help="the page is inside MLflow's artifact view")
    parser.add_argument("--size", type=int, nargs=2, default=(1400, 860), metavar=("WIDTH", "HEIGHT"))
    args = parser.parse_args()
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        page = browser.new_page(viewport={"width": args.size[0], "height": args.size[1]})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(args.page if args.frame else Path(args.page).resolve().as_uri())
        view = page.frame_locator("iframe.mlflow-html-iframe") if args.frame else page
        view.locator("#panels .panel").first.wait_for(timeout=60_000)
        if args.sentence:
            view.locator("#list button", has_text=args.sentence).first.click()
        view.locator("#kind").select_option(args.kind)
        if args.layer:
            view.locator("#layer").select_option(str(args.layer - 1))
        if args.head:
            view.locator("#head").select_option(str(args.head - 1))
        if args.cell:
            row, col = args.cell
            view.locator(".panel").nth(args.panel).locator(f'td[data-row="{row}"][data-col="{col}"]').hover()
            print(view.locator("#tooltip").inner_text())
        page.screenshot(path=str(args.out))
        browser.close()
    if errors:
        raise SystemExit(f"error: the page raised {errors}")


if __name__ == "__main__":
    main()
