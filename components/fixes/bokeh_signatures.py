"""Works around Bokeh building an IDE signature for each of its models as `bokeh.models` imports.

Upstream: bokeh/bokeh#10007 (importing Bokeh is slow; the signatures came with bokeh/bokeh#12035).
`Model.__init_subclass__` calls `Model.parameters()` for every class of `bokeh.models` (about
450), evaluating each property's default and documentation type, to set
`__init__.__signature__`, which only IDEs and `help()` read. In the browser's Python that is
a share of every start-up's imports (benchmarks/RESULTS.md); the site's worker calls `skip()`
before it imports Panel. Served and in notebooks, Bokeh keeps its signatures.
"""

from __future__ import annotations

import sys

from bokeh.model import model


def _init_subclass(cls) -> None:
    # What Model.__init_subclass__ does besides the signature and the docstring's example.
    super(model.Model, cls).__init_subclass__()


def skip() -> None:
    """Create Bokeh's model classes without their IDE signatures: call before `bokeh.models` is
    imported (by Panel), once per process."""
    if "bokeh.models" in sys.modules:
        raise RuntimeError("bokeh.models is already imported: its signatures are built")
    model.Model.__init_subclass__ = classmethod(_init_subclass)
