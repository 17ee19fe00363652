"""The attention explorer in a real browser (headless Chromium): hovering a cell names both pieces and
the weight and marks their row, column and words; the layer, head and kind controls show each map the
page holds; the search box filters; no console error. The page's data is read back from the file."""

import html

import numpy as np
import pytest
from browser import WatchedPage, browser
from playwright.sync_api import expect
from test_explorer import SENTENCES, explorer_page

from attention_lab.evaluation.explorer import SCALE, read_page_data

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
    return written


@pytest.fixture(scope="module")
def chrome():
    with browser() as launched:
        yield launched


@pytest.fixture
def opened(chrome, pages):
    """Opens a page by name; after the test, asserts it logged no console error."""
    watched = []

    def open_page(name: str) -> tuple[object, dict]:
        path, data = pages[name]
        page = WatchedPage(chrome)
        page.page.goto(path.as_uri())
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
    page.select_option("#kind", "encoder")
    np.testing.assert_allclose(shown(page, 1), mean_of(data["sentences"][0]["encoder"], [len(maps) - 1], cols, cols),
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
    page.fill("#filter", "no such words")
    assert buttons.count() == 0 and page.locator("#list").inner_text() == "no sentence matches"
    page.fill("#filter", "")
    assert buttons.count() == len(SENTENCES)


def test_a_recurrent_page_shows_its_additive_attention_alone(opened):
    page, data = opened("recurrent")
    assert page.locator("#kind option").all_inner_texts() == [data["attention"]] == ["additive attention (decoder → source)"]
    assert not page.locator("#layer").is_visible() and not page.locator("#head").is_visible()
    sentence = data["sentences"][0]
    result = sentence["results"][0]  # greedy
    np.testing.assert_allclose(shown(page, 0), mean_of(result["cross"], [0], len(result["out"]), len(sentence["src"])),
                               atol=1e-3)
    assert_hover_reads_back(page, sentence, 0, [(0, 0), (1, 2)])
