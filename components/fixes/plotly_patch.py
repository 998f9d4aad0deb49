"""Works around Panel's Plotly pane drawing a whole new figure, twice, for every change.

Upstream: none found (nearest, for linked go.Figure only: https://github.com/holoviz/panel/pull/7662);
report text: docs/upstream.md, "Plotly pane".

`PatchablePlotly.show` sends only what changed, in the restyle/relayout messages Panel itself
uses for figures edited in place, whenever the new figure has the same traces (number and
types) as the one shown; Plotly then redraws just those (a moved shape, a title, one trace).
"""

from __future__ import annotations

import re

import numpy as np
import panel as pn
import param

from .plotly_height import FOLLOW_THE_PANE_CSS

MISSING = object()
# Arrays in a restyle travel as JSON lists: the page echoes the restyle back (restyle_data), and
# the Pyodide worker cannot decode binary arrays coming from the page (Bokeh: KeyError 'id',
# https://github.com/holoviz/panel/issues/6579). Beyond this many values a whole figure, sent
# as binary, is cheaper.
MAX_RESTYLE_VALUES = 4096
# Layout arrays whose entries Plotly can edit one at a time.
CONTAINER_ARRAYS = ("shapes", "annotations", "images")
# Changing these through relayout would override a visitor's zoom, which a whole-figure update
# keeps (same uirevision); so would a new uirevision, which asks for exactly that.
WHOLE_FIGURE_LAYOUT = re.compile(r"^uirevision$|^[xy]axis\d*\.(range|autorange)$")


def same_value(a, b) -> bool:
    """Whether two figure values are equal; NumPy arrays are compared by dtype, shape and data."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            # NaN marks an empty cell (a masked key): equal to NaN, so it is not resent.
            and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[key], b[key]) for key in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def flatten(properties: dict, prefix: str = "", items: tuple[str, ...] = ()) -> dict:
    """Nested dicts as Plotly's dotted paths ({'title': {'text': t}} → {'title.text': t}).

    Lists and arrays stay whole, as restyle and relayout take them, except the container
    arrays named in items (a layout's shapes, annotations and images), whose entries get
    indexed paths ('shapes[0].y0'): Plotly redraws one moved item for those, but recomputes
    and redraws the whole plot when the array is replaced.
    """
    flat = {}
    for key, value in properties.items():
        if isinstance(value, dict) and value:
            flat.update(flatten(value, f"{prefix}{key}."))
        elif key in items and isinstance(value, list | tuple) and value:
            for index, item in enumerate(value):
                flat.update(flatten(item, f"{prefix}{key}[{index}]."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def container_lengths(layout: dict) -> tuple[int, ...]:
    """How many entries each layout container array has."""
    return tuple(len(layout.get(key) or ()) for key in CONTAINER_ARRAYS)


def changed_paths(old: dict, new: dict) -> set[str]:
    """The dotted paths whose values differ between two flattened property sets."""
    return {
        path
        for path in old.keys() | new.keys()
        if not same_value(old.get(path, MISSING), new.get(path, MISSING))
    }


def restyle_can_carry(value) -> bool:
    """Whether a trace value can travel in a restyle: the browser gets 1-D arrays only (the pane
    reshapes 2-D arrays, a heatmap's z, only when it draws a whole figure)."""
    if isinstance(value, np.ndarray):
        return value.ndim <= 1
    if isinstance(value, list | tuple):
        return not any(isinstance(item, np.ndarray | list | tuple) for item in value)
    return True


class FigurePatcher:
    """Works out the restyle/relayout that turns the figure last sent whole into a new one.

    Patches are cumulative: each carries the current value of every property changed since the
    last whole figure, so the browser is right even if it only gets the latest one (Bokeh
    combines the changes of one property made while a document is held).
    """

    def __init__(self):
        self.reset(None)

    def reset(self, figure: dict | None) -> None:
        """The figure was sent whole: patches start from it."""
        self._base = self._last = self._flatten(figure) if figure is not None else None
        self._containers = container_lengths(figure.get("layout", {})) if figure else None
        self._touched_layout: set[str] = set()
        self._touched_traces: set[tuple[int, str]] = set()

    @staticmethod
    def _flatten(figure: dict) -> tuple[dict, list[dict]]:
        layout = flatten(figure.get("layout", {}), items=CONTAINER_ARRAYS)
        return layout, [flatten(t) for t in figure.get("data", [])]

    def patch(self, figure: dict) -> tuple[dict, dict, list[int]] | None:
        """(restyle data, relayout data, trace indices), empty when nothing changed since the
        last figure; None when the figure must be sent whole."""
        if self._base is None:
            return None
        layout, traces = self._flatten(figure)
        base_layout, base_traces = self._base
        if (
            len(traces) != len(base_traces)
            or any(
                new.get("type") != old.get("type")
                for new, old in zip(traces, base_traces, strict=True)
            )
            or container_lengths(figure.get("layout", {})) != self._containers
        ):
            return None
        last_layout, last_traces = self._last
        if not changed_paths(last_layout, layout) and not any(
            changed_paths(old, new) for old, new in zip(last_traces, traces, strict=True)
        ):
            return {}, {}, []
        layout_changes = changed_paths(base_layout, layout)
        trace_changes = {
            (index, path)
            for index, (old, new) in enumerate(zip(base_traces, traces, strict=True))
            for path in changed_paths(old, new)
        }
        if any(WHOLE_FIGURE_LAYOUT.match(path) for path in layout_changes) or not all(
            restyle_can_carry(traces[index].get(path)) for index, path in trace_changes
        ):
            return None
        touched_layout = self._touched_layout | layout_changes
        touched_traces = self._touched_traces | trace_changes
        indices = sorted({index for index, _ in touched_traces})
        paths = sorted({path for _, path in touched_traces})
        # One restyle gives every path a value for every trace in it. A property that is gone
        # (or was never there) would travel as null, which Plotly reports back as undefined and
        # Panel's page then fails to serialise: such figures are sent whole.
        relayout = {path: layout.get(path) for path in sorted(touched_layout)}
        restyle = {path: [traces[index].get(path) for index in indices] for path in paths}
        arrays = [v for values in restyle.values() for v in values if isinstance(v, np.ndarray)]
        if sum(array.size for array in arrays) > MAX_RESTYLE_VALUES:
            return None
        restyle = {
            path: [v.tolist() if isinstance(v, np.ndarray) else v for v in values]
            for path, values in restyle.items()
        }
        values = [*relayout.values(), *(value for values in restyle.values() for value in values)]
        if any(value is None for value in values):
            return None
        self._touched_layout, self._touched_traces = touched_layout, touched_traces
        self._last = layout, traces
        return restyle, relayout, indices


def copy_containers(value):
    """A copy of the dicts and lists in value, sharing the arrays and other leaves."""
    if isinstance(value, dict):
        return {key: copy_containers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_containers(item) for item in value]
    return value


class FigureJSON:
    """A figure dict in the shape Panel's Plotly pane reads from a plotly.py figure.

    The pane takes the NumPy arrays out of the traces (they travel as binary buffers), which
    changes the dicts it is given: it gets copies, so the figure shown stays whole.
    """

    def __init__(self, figure: dict):
        self._data = copy_containers(list(figure["data"]))
        self._layout = copy_containers(figure["layout"])


class PatchablePlotly(pn.pane.Plotly):
    """A Plotly pane that shows a new figure by sending only what changed, when it can."""

    def __init__(self, object=None, **params):
        # Its chart follows the pane's height (fixes/plotly_height.py).
        params["stylesheets"] = [*params.get("stylesheets", []), FOLLOW_THE_PANE_CSS]
        super().__init__(object, **params)
        self._patcher = FigurePatcher()
        self._patcher.reset(object if isinstance(object, dict) else None)

    def _to_figure(self, obj):
        """Our figures go to the page as they are: plotly.py would validate every property
        (tests/test_figures.py checks them against Plotly's schema instead) and add its default
        template, which each figure already carries (theme.TEMPLATE)."""
        if not isinstance(obj, dict):
            return super()._to_figure(obj)
        return FigureJSON(obj)

    def show(self, figure: dict, whole: bool = False) -> None:
        """Show figure: a patch of what changed, else (or when whole) the whole figure.

        `.object` always becomes figure, so a page opened later draws it whole.
        """
        patch = None if whole else self._patcher.patch(figure)
        with param.parameterized.discard_events(self):
            self.object = figure
        if patch is None:
            self._patcher.reset(figure)
            self.param.trigger("object")
        elif patch[0] or patch[1]:
            self._send_patch(*patch)

    def _send_patch(self, restyle: dict, relayout: dict, traces: list[int]) -> None:
        # What Panel's Plotly pane does for a figure edited in place (_send_update_msg).
        message = {}
        if relayout:
            message["relayout"] = relayout
        if restyle:
            message["restyle"] = {"data": restyle, "traces": traces}
        for ref, (model, _) in self._models.copy().items():
            # Bokeh sends nothing for a value equal to the current one, and the page resets
            # these to null only once it has applied them: clear a value still there first.
            held = {key for key, value in message.items() if same_value(getattr(model, key), value)}
            if held:
                self._apply_update([], dict.fromkeys(held), model, ref)
            self._apply_update([], message, model, ref)
