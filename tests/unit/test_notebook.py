"""pe_explorer.notebook: show() and iframe() in Python, and in a notebook executed by nbclient."""

from __future__ import annotations

import json
import re
import sys
from html import unescape
from urllib.parse import parse_qs, urlsplit

import nbformat
import panel as pn
import pytest
from nbclient import NotebookClient
from panel.io.location import Location
from panel.util import edit_readonly
from pe_explorer.notebook import iframe, iframe_html, show, site_root
from pe_explorer.urlstate import parse_query, state_keys
from pe_explorer.views import VIEW_NAMES, view_spec

PANEL_MIMETYPE = "application/vnd.holoviews_exec.v0+json"
SITE = "https://example.org/pe/"
KERNEL_NAME = "pe-explorer-venv"
# What the notebook runs: each cell's outputs are checked by one test below.
CELLS = {
    "executable": "import sys\nprint(sys.executable)",
    "view": 'from pe_explorer.notebook import iframe, show\nshow(view="compare", d_model=64)',
    "bad_value": 'show(view="heatmap", d_model=7)',
    "iframe": f'iframe(view="compare", site_url="{SITE}", d_model=64)',
}


def shown_notices(page) -> list[str]:
    """The text of the notices the page shows (empty when none is visible)."""
    panes = page.__panel__().select(pn.pane.HTML)
    visible = [pane.object for pane in panes if "pe-notices" in pane.object and pane.visible]
    return [unescape(item) for text in visible for item in re.findall(r"<li>(.*?)</li>", text)]


def frame_src(html_text: str) -> str:
    """The src of the one <iframe> in html_text."""
    (src,) = re.findall(r'<iframe[^>]* src="([^"]*)"', html_text)
    return unescape(src)


def test_show_gives_the_view_and_state_asked_for():
    page = show(view="compare", d_model=64, pos=20, offset=-5)
    assert page.options.view == "compare"
    assert not page.options.embed
    assert (page.state.d_model, page.state.pos, page.state.offset) == (64, 20, -5)
    assert shown_notices(page) == []


def test_show_without_a_view_gives_every_view():
    page = show()
    assert page.options.view == ""
    assert page.state.d_model == 128


@pytest.mark.parametrize(
    ("state", "link"),
    [
        ({"d_model": 7}, "d_model=7"),
        ({"pos": "abc"}, "pos=abc"),
        ({"pos": -3, "base": 1e9}, "pos=-3&base=1000000000.0"),
        ({"pairs": [1, "x"], "theme": "pink"}, "pairs=1,x&theme=pink"),
    ],
)
def test_show_says_what_was_adjusted_as_a_link_would(state, link):
    expected = [str(notice) for notice in parse_query(link, VIEW_NAMES).notices]
    assert expected
    assert shown_notices(show(**state)) == expected


def test_show_uses_the_nearest_valid_value():
    page = show(d_model=7, n_positions=5000)
    assert (page.state.d_model, page.state.n_positions) == (8, 2048)


def test_show_never_writes_the_notebook_address():
    page = show(view="waves")
    page.state.pos = 3
    assert not page.url.writer.active


def test_show_ignores_the_notebook_location(monkeypatch):
    # What Panel's notebook Location holds once the browser reported the notebook's address.
    notebook_location = Location()
    with edit_readonly(notebook_location):
        notebook_location.href = "http://localhost:8888/lab/tree/course.ipynb"
    monkeypatch.setattr(pn.state, "_location", notebook_location)
    page = show(view="compare", d_model=64)
    notebook_location.search = "?d_model=16"
    assert page.state.d_model == 64
    assert page.options.view == "compare"
    assert pn.state._location is notebook_location


@pytest.mark.parametrize("call", [show, iframe_html])
def test_an_unknown_view_is_refused_naming_the_views(call):
    with pytest.raises(ValueError, match="view must be one of heatmap, compare") as error:
        call(view="nonesuch")
    assert all(name in str(error.value) for name in VIEW_NAMES)


@pytest.mark.parametrize("call", [show, iframe_html])
def test_an_unknown_key_is_refused_naming_the_keys(call):
    with pytest.raises(ValueError, match="unknown state key") as error:
        call(d_modle=64)
    assert "d_modle" in str(error.value)
    assert all(key in str(error.value) for key in state_keys())


def test_iframe_src_holds_the_canonical_query_of_an_embed():
    src = frame_src(iframe_html("compare", SITE, d_model=64, pos=20))
    assert src.startswith(SITE + "?")
    query = parse_qs(urlsplit(src).query)
    assert query["d_model"] == ["64"]
    assert query["pos"] == ["20"]
    assert query["view"] == ["compare"]
    assert query["embed"] == ["1"]


def test_iframe_adjusts_bad_values_and_says_so():
    text = iframe_html("compare", SITE, d_model=65)
    assert parse_qs(urlsplit(frame_src(text)).query)["d_model"] == ["66"]
    assert "d_model: 65 is odd; used 66" in text


@pytest.mark.parametrize(
    ("view", "height", "expected"),
    [("compare", None, view_spec("compare").embed_height), ("heatmap", 500, 500), (None, 700, 700)],
)
def test_iframe_height_is_the_view_tables_unless_given(view, height, expected):
    text = iframe_html(view, SITE, height)
    assert re.findall(r'<iframe[^>]* height="(\d+)"', text) == [str(expected)]


@pytest.mark.parametrize(
    ("site_url", "root"),
    [
        ("https://example.org", "https://example.org/"),
        ("https://example.org/pe", "https://example.org/pe/"),
        ("https://example.org/pe/?view=waves#top", "https://example.org/pe/"),
        ("https://example.org/pe/index.html", "https://example.org/pe/index.html"),
    ],
)
def test_iframe_points_at_the_site_root(site_url, root):
    assert site_root(site_url) == root
    assert frame_src(iframe_html(None, site_url)).startswith(root + "?")


def test_iframe_is_an_html_display_of_the_frame():
    display = iframe("waves", SITE, pos=3)
    assert display.data == iframe_html("waves", SITE, pos=3)
    assert display._repr_html_() == display.data


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict[str, list[dict]]:
    """The outputs of CELLS, run by nbclient in a kernel of this interpreter (the venv's)."""
    folder = tmp_path_factory.mktemp("notebook")
    # A kernelspec of our own, so no kernel registered elsewhere on the machine is used.
    spec = folder / "jupyter" / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "pe-explorer venv", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel))
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell(source) for source in CELLS.values()]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(folder / "jupyter"))
        client = NotebookClient(
            book,
            kernel_name=KERNEL_NAME,
            timeout=180,
            startup_timeout=120,
            resources={"metadata": {"path": str(folder)}},
        )
        client.execute()
    nbformat.write(book, folder / "explorer.ipynb")
    return {name: cell.outputs for name, cell in zip(CELLS, book.cells, strict=True)}


def display_data(outputs: list[dict]) -> list[dict]:
    return [output["data"] for output in outputs if "data" in output]


def test_the_kernel_is_this_python(executed):
    (output,) = executed["executable"]
    assert output["text"].strip() == sys.executable


def test_no_cell_outputs_an_error(executed):
    errors = [output for outputs in executed.values() for output in outputs]
    assert [output for output in errors if output["output_type"] == "error"] == []


@pytest.mark.parametrize(("cell", "view"), [("view", "compare"), ("bad_value", "heatmap")])
def test_show_outputs_the_panel_model_of_the_view(executed, cell, view):
    (result,) = [output for output in executed[cell] if output["output_type"] == "execute_result"]
    assert PANEL_MIMETYPE in result["data"]
    assert f"pe-view-{view}" in result["data"]["text/html"]


def test_a_bad_value_shows_the_notice_in_the_output(executed):
    notice = "d_model: 7 is odd; used 8 (d_model must be even)"
    assert notice in json.dumps(executed["bad_value"])
    assert "Some link parameters were adjusted" not in json.dumps(executed["view"])


def test_iframe_outputs_the_frame_with_the_query(executed):
    (data,) = display_data(executed["iframe"])
    src = frame_src(data["text/html"])
    assert src.startswith(SITE + "?")
    query = parse_qs(urlsplit(src).query)
    assert (query["d_model"], query["view"], query["embed"]) == (["64"], ["compare"], ["1"])


@pytest.mark.parametrize("given", ["gemma-3-27b-it", "model-positions", "dict"])
def test_show_opens_the_model_view_on_a_given_model(given):
    from pe_explorer import read_model
    from pe_explorer.model.presets import PRESETS
    from pe_explorer.views.model import describe_model

    source = {
        "gemma-3-27b-it": "gemma-3-27b-it",
        "model-positions": read_model("gemma-3-27b-it"),
        "dict": PRESETS["gemma-3-27b-it"]["config"],
    }[given]
    page = show(model=source)
    view = page.view("model")
    view.set_shown(True)  # as the notebook's output area shows it
    shown = describe_model(view.model())
    assert "62 layers" in shown and "(52): sliding_attention" in shown
    assert "transformers 5.23.0 runs Gemma3ForCausalLM" in view._status.object
    assert page.options.view == "model"
