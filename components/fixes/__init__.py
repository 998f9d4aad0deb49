"""Every workaround of Panel, Bokeh and Plotly internals, one module each; the upgrade checklist.

| module | works around |
| --- | --- |
| plotly_patch | Panel's Plotly pane drawing a whole figure (twice) for every change |
| redraw_guard | Panel's Plotly model redrawing plots whose size did not change |
| plotly_height | Panel's Plotly pane keeping its chart at the height it first had |
| location | Panel's Location failing on a URL with a second `?` (`?text=why?`), served |
| departed_pages | Panel's unawaited writes to a page closed mid-step, a traceback when served |
| keep_alive | Bokeh's keep-alive detaching a session its closing socket still uses, when served |
| slider | Panel's 50 ms debounce and busy-socket retry, merging served slider steps |
| notebook_location | Panel's global notebook Location, which a page would take for its link |
| notebook_batch | Panel's notebook comm sending each property of a redraw as its own message |
| slider_keys | noUiSlider's Home and End keys using a slider's first range after it changed |
| chart_names | Panel's Plotly pane giving a chart no name; its HTML pane closing `<details>` |
| control_names | BokehJS's slider handles, Spinner buttons, MultiChoice items without names |
| scroll_regions | Panel's HTML pane leaving a sideways-scrolling region out of the tab order |
| plotly_quiet | Panel's Plotly view sending each relayout made in the page back to Python |
| design_theme | Panel switching its theme (each component's `default.css`) only at load |
| bokeh_signatures | Bokeh building IDE signatures for ~450 models at import (site's worker only) |

The six that run in the browser (redraw_guard, slider_keys, chart_names, control_names,
scroll_regions, plotly_quiet) are scripts in components/js/fixes/, each built on one helper,
patch_view.js (find a BokehJS view's method, wrap it once for every fix, mark it, replay over
the views drawn); browser.py installs them all from one hidden component (with the picker of
plotkit/picks.py, no fix, which hooks the same views).

Outside this folder, components/worker.py (the Python side of the site's worker, which replaces
Panel's: static/worker.js) calls Panel's private worker helpers, and scripts/panel_output.py
rewrites Panel's page; check them too.

Each module's first line names what it works around and links the upstream report; where none
exists, docs/upstream.md holds the text of one. When Panel or Bokeh is upgraded, go through this
list: tests/unit/test_fixes_versions.py fails until WRITTEN_FOR says the new versions.
`panel serve` (./build.sh dev) is for development: it gets only what keeps it correct
(location, departed_pages, slider), never a fix for speed.
"""

# The versions these workarounds were written for and checked against.
WRITTEN_FOR = {"panel": "1.9.4", "bokeh": "3.9.2"}
