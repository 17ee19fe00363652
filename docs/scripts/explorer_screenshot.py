"""A screenshot of the attention explorer page as headless Chromium shows it (docs/explorer.md's and the
README's pictures): a sentence, a kind of attention, a layer, a head and a search chosen, as the page's URL hash
would (docs/explorer.md: "The URL"), then optionally the layer × head grid opened, the map scrolled and the
pointer on one cell; or of the page inside MLflow's artifact view, given that view's URL.

    python docs/scripts/explorer_screenshot.py reports/heatmaps/explorer.html docs/images/explorer-transformer.png \
        --sentence "I don't know what to do." --layer 2 --head 3 --cell 2 4
    python docs/scripts/explorer_screenshot.py reports/heatmaps/explorer.html docs/images/explorer-long.png \
        --longest --scroll 0.5 0.6
    python docs/scripts/explorer_screenshot.py reports/heatmaps/explorer.html docs/images/explorer-grid.png \
        --sentence "She is taller than her brother." --grid --layer 1 --head 2
    python docs/scripts/explorer_screenshot.py "http://127.0.0.1:5000/#/experiments/1/runs/RUN/artifacts/heatmaps/explorer.html" \
        docs/images/explorer-in-mlflow.png --frame --cell 2 2

Needs Debian's chromium (or CHROMIUM=path) and the test extras' playwright.
"""

import argparse
import os
import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("page", help="the page's file, or an MLflow UI URL with --frame")
    parser.add_argument("out", type=Path, help="PNG to write")
    parser.add_argument("--sentence", help="the source to select (default: the first)")
    parser.add_argument("--longest", action="store_true", help="select the sentence of the most source pieces")
    parser.add_argument("--kind", choices=("cross", "encoder", "decoder"), default="cross")
    parser.add_argument("--layer", type=int, help="1-based; default: all layers' average")
    parser.add_argument("--head", type=int, help="1-based; default: all heads' average")
    parser.add_argument("--search", choices=("greedy", "beam"), help="the search shown (default: beam)")
    parser.add_argument("--grid", action="store_true", help="open the layer × head grid")
    parser.add_argument("--scroll", type=float, nargs=2, metavar=("RIGHT", "DOWN"),
                        help="scroll the shown map's box this fraction across and down (its labels stay)")
    parser.add_argument("--cell", type=int, nargs=2, metavar=("ROW", "COL"), help="the cell to point at (0-based)")
    parser.add_argument("--frame", action="store_true", help="the page is inside MLflow's artifact view")
    parser.add_argument("--size", type=int, nargs=2, default=(1400, 860), metavar=("WIDTH", "HEIGHT"))
    return parser.parse_args()


def main() -> None:
    args = arguments()
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        page = browser.new_page(viewport={"width": args.size[0], "height": args.size[1]})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(args.page if args.frame else Path(args.page).resolve().as_uri())
        view = page.frame_locator("iframe.mlflow-html-iframe") if args.frame else page
        view.locator("#panels .panel").first.wait_for(timeout=60_000)
        if args.longest:
            index = view.locator("#explorer-data").evaluate(
                "d => { const s = JSON.parse(d.textContent).sentences.map((x) => x.src.length);"
                " return s.indexOf(Math.max(...s)); }")
            view.locator(f'#list button[data-index="{index}"]').click()
        elif args.sentence:
            view.locator("#list button", has_text=args.sentence).first.click()
        view.locator("#kind").select_option(args.kind)
        if args.layer:
            view.locator("#layer").select_option(str(args.layer - 1))
        if args.head:
            view.locator("#head").select_option(str(args.head - 1))
        if args.search:
            view.locator("#searches button", has_text=args.search).click()
        if args.grid:
            view.locator("#grid-box summary").click()
        panel = view.locator(".panel:visible").last
        if args.scroll:
            panel.locator(".mapbox").evaluate(
                f"b => {{ b.scrollLeft = {args.scroll[0]} * (b.scrollWidth - b.clientWidth);"
                f" b.scrollTop = {args.scroll[1]} * (b.scrollHeight - b.clientHeight); }}")
        if args.cell:
            row, col = args.cell
            panel.locator(f'td[data-row="{row}"][data-col="{col}"]').hover()
            print(view.locator("#tooltip").inner_text())
        print(page.evaluate("location.hash") if not args.frame else "")
        page.screenshot(path=str(args.out))
        browser.close()
    if errors:
        raise SystemExit(f"error: the page raised {errors}")


if __name__ == "__main__":
    main()
