"""components/worker.py under CPython: each frame's messages act on its own document.
(The shared worker itself runs in tests/pyodide/test_pyodide_embeds.py.)"""

from __future__ import annotations

import json

import panel as pn
import pytest
from bokeh.document import Document
from pe_explorer import worker as shared_runtime


@pytest.fixture
def two_frames(monkeypatch):
    docs = {1: Document(), 2: Document()}
    monkeypatch.setattr(shared_runtime, "_documents", dict(docs))
    yield docs
    for doc in docs.values():
        pn.state._locations.pop(doc, None)


def href(search: str) -> str:
    return json.dumps({"href": f"https://x.org/pe/{search}", "pathname": "/pe/", "search": search})


def test_each_frame_has_its_own_url(two_frames):
    shared_runtime.location(1, href("?pos=3"))
    shared_runtime.location(2, href("?pos=9&view=waves"))
    assert shared_runtime.use(1) is two_frames[1] and pn.state.curdoc is two_frames[1]
    assert pn.state.location.search == "?pos=3"
    shared_runtime.use(2)
    assert pn.state.curdoc is two_frames[2]
    assert pn.state.location.search == "?pos=9&view=waves"


def test_a_closed_frame_is_forgotten(two_frames):
    shared_runtime.location(1, href("?pos=3"))
    assert shared_runtime.frames() == 2
    shared_runtime.close(1)
    shared_runtime.close(1)  # a second goodbye does nothing
    assert shared_runtime.frames() == 1
    assert two_frames[1] not in pn.state._locations
    with pytest.raises(KeyError):
        shared_runtime.use(1)
    assert shared_runtime.use(2) is two_frames[2]
