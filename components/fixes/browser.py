"""Installs every fix that runs in the browser from one hidden component, its module made here.

Why one: Panel 1.9.4 loads each JSComponent's `_esm` as a module of its own, from a blob URL
(`URL.createObjectURL` in `ReactiveESM.recompile`, panel/models/reactive_esm.ts), where a
relative `import ... from './patch_view.js'` has no base URL to resolve against; Panel's other
ways are an import map of served URLs or an esbuild bundle (`panel compile`), a second build of
the page's JavaScript. So, as a bundler would, the helper components/js/fixes/patch_view.js and
each fix's script (without its import of the helper, in a block, so that its names stay its own)
are put together once, when this module is imported, and each render installs them all.
"""

from __future__ import annotations

import re
from pathlib import Path

from panel.custom import JSComponent

from ..plotkit import picks
from . import (
    chart_names,
    control_names,
    plotly_quiet,
    redraw_guard,
    scroll_regions,
    slider_keys,
)

HELPER = Path(__file__).parents[1] / "js" / "fixes" / "patch_view.js"
# Each fix's script: the page's order (a Plotly guard first, as when each was a component), and
# last the picker, which is no fix but hooks the same views (after chart names: its name wins).
SCRIPTS = tuple(
    fix.SCRIPT
    for fix in (
        redraw_guard,
        slider_keys,
        chart_names,
        control_names,
        scroll_regions,
        plotly_quiet,
        picks,
    )
)
IMPORT_HELPER = re.compile(r"^import \{[\w\s,]+\} from '\./patch_view\.js';\n", re.M)


def one_module(helper: Path, scripts: tuple[Path, ...]) -> str:
    """The helper module followed by each fix's script in a block of its own."""
    parts = [helper.read_text(encoding="utf-8")]
    for script in scripts:
        body, imports = IMPORT_HELPER.subn("", script.read_text(encoding="utf-8"))
        if imports != 1 or re.search(r"^(import|export)\b", body, re.M):
            raise ValueError(f"{script.name}: a fix imports patch_view.js once and nothing else")
        parts.append(f"// {script.name}\n{{\n{body}}}\n")
    return "\n".join(parts)


class BrowserFixes(JSComponent):
    """Every fix of BokehJS's views and of Plotly on the page: hidden, one per page."""

    _esm = one_module(HELPER, SCRIPTS)
