"""The attention explorer in a real browser (headless Chromium): hovering a cell names both pieces and
the weight and marks their row, column and words; the layer, head and kind controls show each map the
page holds; the search box filters; no console error. The page's data is read back from the file."""

import html
import re

import numpy as np
import pytest
from browser import WatchedPage, browser
from playwright.sync_api import expect
from test_explorer import SENTENCES, explorer_page

from attention_lab.evaluation.explorer import SCALE, read_page_data

# Thirty short sentences (more than the list pane holds) and one of more than 72 source pieces.
MANY = [f"{who} {what}" for who in ("I see", "We like", "Tom reads", "The dog sees", "She likes")
        for what in ("the cat.", "the book.", "the dog.", "a book.", "Tom.", "the cat and the dog.")]
LONG = " ".join(["I see the cat and we like the book.", "The dog runs.", "Tom reads the book."] * 4)
READ_MATRIX = """panel => [...panel.querySelectorAll("tbody tr")].map(
    tr => [...tr.querySelectorAll("td")].map(td => Number(td.dataset.weight)))"""


@pytest.fixture(scope="module")
def pages(trained_model, transformer_model, tmp_path_factory):
    """The page of each tiny model (recurrent, Transformer): its file and the data it embeds."""
    folder = tmp_path_factory.mktemp("explorer")
    written = {}
    for name, model in (("recurrent", trained_model), ("transformer", transformer_model)):
        path = folder / f"{name}.html"
        path.write_text(explorer_page(model)[1], encoding="utf-8")
        written[name] = (path, read_page_data(path.read_text(encoding="utf-8")))
    path = folder / "many.html"  # a list longer than the window, then a source of more than 72 pieces
    path.write_text(explorer_page(transformer_model, MANY + [LONG])[1], encoding="utf-8")
    written["many"] = (path, read_page_data(path.read_text(encoding="utf-8")))
    return written


@pytest.fixture(scope="module")
def chrome():
    with browser() as launched:
        yield launched


@pytest.fixture
def opened(chrome, pages):
    """Opens a page by name; after the test, asserts it logged no console error."""
    watched = []

    def open_page(name: str, hash_: str = "") -> tuple[object, dict]:
        path, data = pages[name]
        page = WatchedPage(chrome)
        page.page.goto(path.as_uri() + hash_)
        watched.append(page)
        return page.page, data

    yield open_page
    for page in watched:
        assert not page.errors, page.errors
        page.page.close()


def shown(page, panel: int) -> np.ndarray:
    return np.array(page.locator(".panel").nth(panel).evaluate(READ_MATRIX))


def assert_hover_reads_back(view, sentence: dict, search: int, cells) -> None:
    """Hovering each (row, column) of `cells` in the panel of `search` shows both pieces and the weight of
    the cross-attention's average, and marks the cell's row, column and words."""
    result = sentence["results"][search]
    rows, cols = len(result["out"]), len(sentence["src"])
    average = mean_of(result["cross"], range(len(result["cross"])), rows, cols)
    panel, tip = view.locator(".panel").nth(search), view.locator("#tooltip")
    for i, j in cells:
        panel.locator(f'td[data-row="{i}"][data-col="{j}"]').hover()
        expect(tip).to_be_visible()
        assert tip.locator(".row-piece").inner_text() == result["out"][i]
        assert tip.locator(".col-piece").inner_text() == sentence["src"][j]
        assert float(tip.locator(".weight").inner_text()) == pytest.approx(average[i, j], abs=1e-3)
        assert panel.locator("tbody th.hl").inner_text() == result["out"][i]
        assert panel.locator("thead th.hl").inner_text() == sentence["src"][j]
        assert panel.locator("td.hl").count() == rows + cols - 1
        source_word = panel.locator('.words[data-axis="col"] span.hl').inner_text()
        output_word = panel.locator('.words[data-axis="row"] span.hl').inner_text()
        assert sentence["src"][j].lstrip("▁") in source_word and result["out"][i].lstrip("▁") in output_word


def mean_of(maps: list[list[int]], chosen, rows: int, cols: int) -> np.ndarray:
    return np.mean([np.reshape(maps[r], (rows, cols)) for r in chosen], axis=0) / SCALE


def test_hovering_a_cell_names_both_pieces_and_the_weight_and_marks_row_column_and_words(opened):
    page, data = opened("transformer")
    page.locator("#list button").nth(1).click()  # two sentences: their maps block-diagonal
    sentence = data["sentences"][1]
    rows, cols = len(sentence["results"][1]["out"]), len(sentence["src"])
    tip, panel = page.locator("#tooltip"), page.locator(".panel").nth(1)
    expect(tip).to_be_hidden()
    assert_hover_reads_back(page, sentence, 1, [(0, 0), (rows - 1, cols - 2), (rows // 2, cols // 3)])
    panel.locator('thead th[data-col="1"]').hover()  # a piece marks its whole column
    expect(tip).to_be_hidden()
    assert panel.locator("td.hl").count() == rows
    page.mouse.move(0, 0)
    expect(tip).to_be_hidden()
    assert panel.locator(".hl").count() == 0


def test_the_page_works_in_a_frame_sandboxed_to_scripts_as_mlflows_artifact_view(chrome, pages):
    """MLflow 3 shows an HTML artifact in `<iframe sandbox="allow-scripts">` (an opaque origin: no storage,
    no cookies, no parent): the page runs and hovers there too."""
    path, data = pages["transformer"]
    frame = html.escape(path.read_text(encoding="utf-8"), quote=True)
    watched = WatchedPage(chrome)
    watched.page.set_content(f'<iframe sandbox="allow-scripts" style="width:1300px;height:850px" srcdoc="{frame}">'
                             "</iframe>")
    view = watched.page.frame_locator("iframe")
    expect(view.locator("#panels .panel")).to_have_count(2)
    assert_hover_reads_back(view, data["sentences"][0], 0, [(1, 1)])
    view.locator("#list button").first.click()
    watched.page.keyboard.press("ArrowDown")  # the frame may refuse to write its URL's hash: the keys still work
    expect(view.locator("#about .source")).to_have_text(data["sentences"][1]["source"])
    assert not watched.errors, watched.errors


def test_the_layer_head_and_kind_controls_show_each_map_the_page_holds(opened):
    page, data = opened("transformer")
    layers, heads = data["layout"]
    result = data["sentences"][0]["results"][1]
    rows, cols = len(result["out"]), len(data["sentences"][0]["src"])
    everything = range(layers * heads)
    np.testing.assert_allclose(shown(page, 1), mean_of(result["cross"], everything, rows, cols), atol=1e-3)
    maps = []
    for layer in range(layers):
        page.select_option("#layer", str(layer))
        page.select_option("#head", "-1")
        np.testing.assert_allclose(shown(page, 1), mean_of(result["cross"], range(layer * heads, (layer + 1) * heads),
                                                            rows, cols), atol=1e-3)
        for head in range(heads):
            page.select_option("#head", str(head))
            maps.append(shown(page, 1))
            np.testing.assert_allclose(maps[-1], mean_of(result["cross"], [layer * heads + head], rows, cols),
                                       atol=1e-3)
    assert max(np.abs(m - maps[0]).max() for m in maps) > 0.01  # the maps differ: a switch is seen
    page.select_option("#kind", "encoder")  # the same under both searches: drawn once
    assert page.locator(".panel").count() == 1 and page.locator("#searches").is_hidden()
    np.testing.assert_allclose(shown(page, 0), mean_of(data["sentences"][0]["encoder"], [len(maps) - 1], cols, cols),
                               atol=1e-3)
    page.select_option("#kind", "decoder")
    decoder = shown(page, 1)
    np.testing.assert_allclose(decoder, mean_of(result["decoder"], [len(maps) - 1], rows, rows), atol=1e-3)
    assert np.all(np.triu(decoder, k=1) == 0)  # masked: no step reads a later one
    assert page.locator(".panel").nth(1).locator("thead th div").all_inner_texts() == result["inputs"]
    page.locator("#list button").nth(1).click()  # two sentences: each one's first step reads its own <bos>
    inputs = page.locator(".panel").nth(1).locator("thead th div").all_inner_texts()
    assert inputs == data["sentences"][1]["results"][1]["inputs"] and inputs.count("<bos>") == 2


def test_the_search_box_filters_sentences_by_any_of_their_texts(opened):
    page, data = opened("transformer")
    buttons = page.locator("#list button")
    assert buttons.count() == len(SENTENCES)
    page.fill("#filter", "book")
    assert buttons.count() == 1 and "We like the book." in buttons.inner_text()
    page.fill("#filter", "TOM READS")  # any case
    assert buttons.count() == 1 and buttons.inner_text().startswith("Tom reads.")
    expect(page.locator("#about .source")).to_have_text("Tom reads.")  # the one sentence left is shown
    page.fill("#filter", "no such words")  # and no map of a sentence it hid is left on screen
    assert buttons.count() == 0 and page.locator("#list").inner_text() == "no sentence matches"
    assert page.locator(".panel").count() == 0 and page.locator("#grid .thumb").count() == 0
    expect(page.locator("#about")).to_have_text("no sentence matches the search")
    page.fill("#filter", "")
    assert buttons.count() == len(SENTENCES)
    assert page.locator("#list h3").all_inner_texts() == ["typed"]  # a group's name as written, not upper-cased


def test_a_recurrent_page_shows_its_additive_attention_alone(opened):
    page, data = opened("recurrent")
    kinds = page.locator("#kind option").all_inner_texts()
    assert kinds == [data["attention"]] == ["additive attention (decoder → source)"]
    assert not page.locator("#layer").is_visible() and not page.locator("#head").is_visible()
    sentence = data["sentences"][0]
    result = sentence["results"][0]  # greedy
    np.testing.assert_allclose(shown(page, 0), mean_of(result["cross"], [0], len(result["out"]), len(sentence["src"])),
                               atol=1e-3)
    assert_hover_reads_back(page, sentence, 0, [(0, 0), (1, 2)])


# -- the layout: panes, one colour scale, long sources, every layer × head, the URL hash, the keys ---------------

BLUES = "matplotlib's Blues, the PNG heatmaps' colormap"


def blues(weight: float) -> np.ndarray:
    """The colour (0-255 RGB) of `weight` on the PNG heatmaps' scale: matplotlib's Blues from 0 to 1."""
    from matplotlib import colormaps

    return np.array(colormaps["Blues"](weight)[:3]) * 255


def rgb(css: str) -> np.ndarray:
    return np.array([float(v) for v in re.findall(r"\d+", css)[:3]])


def test_a_sentence_low_in_the_list_draws_its_map_in_view_and_only_the_panes_scroll(opened):
    page, data = opened("many")
    height = page.viewport_size["height"]
    assert page.evaluate("document.documentElement.scrollHeight") <= height  # the page is the window
    pane = page.locator("#list")
    assert pane.evaluate("l => l.scrollHeight > l.clientHeight")  # the list is longer: it scrolls on its own
    low = page.locator("#list button").nth(len(MANY) - 2)
    low.click()
    assert pane.evaluate("l => l.scrollTop") > 0 and page.evaluate("window.scrollY") == 0
    expect(page.locator("#about .source")).to_have_text(MANY[-2])
    for selector in ("#controls", "#colourbar", ".panel table"):
        box = page.locator(selector).first.bounding_box()
        assert 0 <= box["y"] and box["y"] + 20 < height, (selector, box)
    page.keyboard.press("ArrowDown")  # the last sentences too
    page.keyboard.press("ArrowDown")
    expect(page.locator("#about .source")).to_have_text(LONG)
    assert 0 <= page.locator(".panel:visible table").bounding_box()["y"] < height - 20


def test_every_panel_draws_a_weight_in_one_colour_on_a_0_to_1_scale_with_a_colour_bar(opened):
    page, data = opened("transformer")
    page.locator("#list button").nth(1).click()
    bar = page.locator("#colourbar .bar")
    expect(bar).to_be_visible()
    gradient = bar.evaluate("b => getComputedStyle(b).backgroundImage")
    stops = [rgb(stop) for stop in re.findall(r"rgb\([^)]*\)", gradient)]
    for at, stop in zip(np.linspace(0, 1, len(stops)), stops):
        np.testing.assert_allclose(stop, blues(at), atol=1.5, err_msg=BLUES)
    colours = {}
    for k in range(2):  # greedy, beam: each cell's colour is its weight's on the one scale
        cells = page.locator(".panel").nth(k).locator("td").evaluate_all(
            "tds => tds.map(td => [Number(td.dataset.weight), getComputedStyle(td).backgroundColor])")
        for weight, css in cells:
            np.testing.assert_allclose(rgb(css), blues(weight), atol=3, err_msg=f"{weight}: {BLUES}")
            colours.setdefault(weight, set()).add(css)
        assert max(w for w, _ in cells) > 0.3  # a dark cell was checked, not only white ones
    assert all(len(seen) == 1 for seen in colours.values())  # the same weight, the same colour in both panels


def test_a_long_sources_map_scrolls_in_its_box_with_its_labels_stuck_to_its_edges(opened):
    page, data = opened("many")
    index = len(data["sentences"]) - 1
    sentence = data["sentences"][index]
    assert len(sentence["src"]) >= 72
    page.locator(f'#list button[data-index="{index}"]').click()
    panels = page.locator(".panel:visible")
    expect(panels).to_have_count(1)  # greedy and beam do not fit side by side: one at a time
    assert panels.first.get_attribute("data-search") == sentence["results"][-1]["search"]
    page.locator("#searches button", has_text="greedy").click()
    expect(panels).to_have_count(1)
    assert panels.first.get_attribute("data-search") == "greedy"
    panel, result = panels.first, sentence["results"][0]
    rows, cols = len(result["out"]), len(sentence["src"])
    cell = panel.locator("td").first.bounding_box()
    assert cell["width"] >= 15.5 and cell["height"] >= 15.5  # legible, not squeezed into the width
    labels = panel.locator(".piece").evaluate_all(
        "ps => ps.map(p => { const r = p.getBoundingClientRect(); return Math.min(r.width, r.height); })")
    assert min(labels) >= 12  # one-character pieces (' . t) too
    box = panel.locator(".mapbox")
    box.evaluate("b => { b.scrollTop = b.scrollHeight; b.scrollLeft = b.scrollWidth; }")
    assert box.evaluate("b => b.scrollTop > 100 && b.scrollLeft > 100")
    frame = box.bounding_box()
    column = panel.locator(f'thead th[data-col="{cols - 1}"]').bounding_box()
    row = panel.locator(f'tbody th[data-row="{rows - 1}"]').bounding_box()
    first_row = panel.locator('tbody th[data-row="0"]').bounding_box()
    assert abs(column["y"] - frame["y"]) <= 2 and column["y"] + column["height"] < frame["y"] + frame["height"]
    assert abs(row["x"] - frame["x"]) <= 2 and abs(first_row["x"] - frame["x"]) <= 2  # every row's label, left
    assert frame["y"] + frame["height"] <= page.viewport_size["height"]


def test_the_layer_by_head_grid_shows_every_map_and_a_click_opens_one(opened):
    page, data = opened("transformer")
    layers, heads = data["layout"]
    page.locator("#grid-box summary").click()
    thumbs = page.locator("#grid .thumb")
    expect(thumbs).to_have_count(layers * heads)
    sentence = data["sentences"][0]
    result = sentence["results"][-1]  # the beam's, as the search buttons say
    rows, cols = len(result["out"]), len(sentence["src"])
    for r in range(layers * heads):  # each thumbnail is its map: its darkest cell in that weight's colour
        weights = np.reshape(result["cross"][r], (rows, cols))
        i, j = np.unravel_index(weights.argmax(), weights.shape)
        pixel = thumbs.nth(r).locator("canvas").evaluate(
            f"c => [c.width, c.height, ...c.getContext('2d').getImageData({j}, {i}, 1, 1).data.slice(0, 3)]")
        assert pixel[:2] == [cols, rows]
        np.testing.assert_allclose(pixel[2:], blues(weights[i, j] / SCALE), atol=3)
    last = layers * heads - 1
    thumbs.nth(last).click()
    assert [page.locator(f"#{c}").input_value() for c in ("layer", "head")] == [str(layers - 1), str(heads - 1)]
    np.testing.assert_allclose(shown(page, 1), mean_of(result["cross"], [last], rows, cols), atol=1e-3)
    expect(thumbs.nth(last)).to_have_attribute("aria-pressed", "true")
    assert "grid=1" in page.evaluate("location.hash")


def test_a_recurrent_page_has_no_layer_by_head_grid(opened):
    page, _ = opened("recurrent")
    expect(page.locator("#grid-box")).to_be_hidden()


def hash_state(page) -> dict:
    return dict(part.split("=") for part in page.evaluate("location.hash").lstrip("#").split("&"))


def test_the_url_hash_holds_sentence_kind_layer_head_and_search_both_ways(opened):
    page, data = opened("transformer", "#s=2&kind=decoder&layer=2&head=1&search=greedy")
    sentence = data["sentences"][2]
    expect(page.locator("#about .source")).to_have_text(SENTENCES[2])
    assert [page.locator(f"#{c}").input_value() for c in ("kind", "layer", "head")] == ["decoder", "1", "0"]
    expect(page.locator('#searches button[aria-pressed="true"]')).to_have_text("greedy")
    rows = len(sentence["results"][0]["out"])
    np.testing.assert_allclose(shown(page, 0), mean_of(sentence["results"][0]["decoder"], [2], rows, rows), atol=1e-3)
    page.select_option("#head", "1")
    page.locator("#list button").nth(1).click()
    page.select_option("#kind", "cross")
    state = hash_state(page)
    assert state == {"s": "1", "kind": "cross", "layer": "2", "head": "2", "search": "greedy"}
    again, _ = opened("transformer", "#" + page.evaluate("location.hash").lstrip("#"))
    np.testing.assert_allclose(shown(again, 0), shown(page, 0))  # the hash brings back what was shown
    assert hash_state(again) == state
    odd, _ = opened("transformer", "#s=99&kind=nothing&layer=7&head=x")  # ignored, not an error
    expect(odd.locator("#about .source")).to_have_text(SENTENCES[0])


def test_arrow_keys_and_j_k_move_through_the_sentences_the_search_box_leaves(opened):
    page, data = opened("transformer")
    current = page.locator('#list button[aria-current="true"]')
    page.locator("#list button").first.click()
    for key, index in (("ArrowDown", 1), ("j", 2), ("j", 2), ("k", 1), ("ArrowUp", 0), ("ArrowUp", 0)):
        page.keyboard.press(key)
        expect(current).to_have_attribute("data-index", str(index))
        expect(page.locator("#about .source")).to_have_text(SENTENCES[index])
    query = "the"
    left = [i for i, s in enumerate(data["sentences"])
            if query in "\n".join([s["source"], *s["references"], *(r["text"] for r in s["results"])]).lower()]
    page.fill("#filter", query)
    page.keyboard.press("ArrowDown")  # from the search box too
    expect(current).to_have_attribute("data-index", str(left[min(1, len(left) - 1)]))
    assert page.locator("#filter").input_value() == query  # j and k there are typed, not keys


def test_the_rows_a_glossary_term_wrote_are_underlined(chrome, transformer_model, tmp_path):
    from test_explorer import SEARCH

    from attention_lab.evaluation.explorer import Entry, explored, identity, page
    from attention_lab.inference.translator import Translator
    from attention_lab.text.glossary import Glossary

    (tmp_path / "terms.tsv").write_text("book\tlivre\n", encoding="utf-8")
    translator = Translator.load(transformer_model, "cpu")
    glossary = Glossary.load(tmp_path / "terms.tsv")
    sentences = explored(translator, [Entry("We like the book.", "typed")], SEARCH, glossary)
    text = page("t", identity(translator, SEARCH), translator, sentences)
    (tmp_path / "page.html").write_text(text, encoding="utf-8")
    watched = WatchedPage(chrome)
    watched.page.goto((tmp_path / "page.html").as_uri())
    beam = sentences[0]["results"][-1]
    assert beam["terms"] and "livre" in beam["text"]
    rows = watched.page.locator(".panel").nth(1).locator("tbody th")
    lines = rows.evaluate_all("ths => ths.map(th => getComputedStyle(th.querySelector('.piece')).textDecorationLine)")
    assert [i for i, line in enumerate(lines) if line == "underline"] == beam["terms"]
    assert not watched.errors, watched.errors
    watched.page.close()
