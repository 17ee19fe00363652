"""Write .dvc/plots/offline.html, the page `dvc plots show` fills (`plots.html_template` in .dvc/config):
Vega, Vega-Lite and vega-embed inlined, so the charts draw with no network, and CSS that fits the
images to the page.

dvc-render's own page loads the three from a CDN (`VegaRenderer.SCRIPTS`); offline its charts are
silently missing. This takes the versions it names, fetches them with `npm pack` (the package
registry) and inlines each package's build/*.min.js. The template has no scripts placeholder, so
DVC adds no CDN tags. Run from the repository root: python docs/scripts/dvc_plots_template.py
"""

from __future__ import annotations

import re
import subprocess
import tarfile
import tempfile
from pathlib import Path

from dvc_render.vega import VegaRenderer

OUT = Path(".dvc/plots/offline.html")
FILES = {"vega": "vega.min.js", "vega-lite": "vega-lite.min.js", "vega-embed": "vega-embed.min.js"}

# dvc-render's image boxes carry inline styles (`white-space: nowrap; overflow-y: hidden`) that keep an
# image at its own width and cut it at the window's edge: overridden, images shrink to the page. Two
# boxes a row (charts, then images); the attention heatmaps' grid (id from its path) gets a row of its own.
STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; margin: 0 auto;
       max-width: 1360px; padding: 12px 16px 40px; display: flex; flex-wrap: wrap; gap: 12px 16px;
       align-items: flex-start; }
body > header { flex-basis: 100%; }
header h1 { font-size: 20px; margin: 8px 0 2px; }
header p { margin: 0; color: #59636e; }
body > div { flex: 1 1 calc(50% - 16px); min-width: 0; box-sizing: border-box; }
body > div[style] { white-space: normal !important; overflow: visible !important; border: 1px solid #d1d9e0 !important;
                    border-radius: 6px; padding: 4px 8px; text-align: left !important; }
body > div[style] > p:first-child { font-weight: 600; margin: 4px 0; overflow-wrap: anywhere; }
body > div[style] > div { display: block !important; border: 0 !important; margin: 0 !important; }
body > div[style] > div > p { display: none; }
body > div[id^="reports_heatmaps"] { flex-basis: 100%; }
img { max-width: 100%; height: auto; display: block; }
.vega-embed { max-width: 100%; }
"""
HEADER = """<header><h1>attention-lab: DVC plots</h1>
<p>The learning curves and the test split's BLEU by length (charts), then the attention heatmaps and the
Nadaraya-Watson figures (images). Drawn offline: Vega is inlined in .dvc/plots/offline.html.</p></header>"""


def versions() -> dict[str, str]:
    found = dict(re.findall(r"npm/(vega(?:-lite|-embed)?)@([\d.]+)", VegaRenderer.SCRIPTS))
    if set(found) != set(FILES):
        raise SystemExit(f"dvc_render.vega.VegaRenderer.SCRIPTS: expected {sorted(FILES)}, found {found}")
    return found


def script(folder: Path, package: str, version: str) -> str:
    subprocess.run(["npm", "pack", "--silent", f"{package}@{version}"], cwd=folder, check=True, capture_output=True)
    with tarfile.open(folder / f"{package}-{version}.tgz") as archive:
        code = archive.extractfile(f"package/build/{FILES[package]}").read().decode()
        notice = archive.extractfile("package/LICENSE").read().decode().replace("-->", "- ->").strip()
    if "</script" in code.lower() or "{plot_divs}" in code:
        raise SystemExit(f"{package}@{version}: cannot be inlined ('</script' or a DVC placeholder in it)")
    return f"<!-- {package} {version}\n{notice}\n-->\n<script>{code}</script>"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        scripts = [script(Path(tmp), package, version) for package, version in versions().items()]
    page = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n{refresh_tag}\n"
            "<title>attention-lab: DVC plots</title>\n"
            "<!-- Written by docs/scripts/dvc_plots_template.py: the versions dvc-render's page loads from a CDN,"
            " inlined (BSD-3-Clause licences, below). -->\n"
            + "\n".join(scripts)
            + f"\n<style>{STYLE}</style>\n</head>\n<body>\n{HEADER}\n{{plot_divs}}\n</body>\n</html>\n")
    OUT.write_text(page, encoding="utf-8")
    print(f"{OUT}: {len(page) // 1024} KiB, {', '.join(f'{p} {v}' for p, v in versions().items())}")


if __name__ == "__main__":
    main()
