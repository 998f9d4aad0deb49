"""Works around Panel sending each changed property of a redraw in a notebook as a message of its
own, so a chart's new name could reach the page before the picks made for it.

Upstream: none found; report text: docs/upstream.md, "Notebook batch". In a Jupyter comm,
`Reactive._apply_update` (panel/reactive.py) pushes the document's held events after every
parameter change, while served, and in the site's worker (static/worker.js), one task's changes
reach the page together. The page's picker (components/js/picker.js) matches a chart's drawing
with its picks by generation; between the two messages it could not, and a frame showed Python's
older value.
Panel's own `block_comm` (panel/io/notebook.py) holds those pushes, and `push_notebook` then sends
everything in one message.
"""

from __future__ import annotations

from contextlib import contextmanager

import panel as pn
from panel.io.notebook import block_comm


def in_a_notebook(component) -> bool:
    """Whether a Panel component is drawn through a notebook's comm."""
    views = pn.state._views
    return any(ref in views and views[ref][3] is not None for ref in component._models)


@contextmanager
def one_message(component):
    """Within the block, a notebook's comm sends nothing; after it, one message sends it all.
    Elsewhere (served, the site's worker) nothing changes."""
    if not in_a_notebook(component):
        yield
        return
    with block_comm():
        yield
    pn.io.push_notebook(component)
