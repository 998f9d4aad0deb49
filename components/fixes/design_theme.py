"""Works around Panel switching themes only at page load (https://github.com/holoviz/panel/issues/7099).

Panel's Design puts its theme's stylesheet (`default.css` or `dark.css`, every `--panel-*`
colour on `:host`) into the shadow root of every component of a page made outside a template,
as the Pyodide site is; colours set on the page's root therefore stop at its first child, and
the dark theme left every text and button light-themed. Here the theme is switched the way
Panel applies a design at load: each component not yet in it gets the Design of the new theme,
and `Design.apply` sends the models their new stylesheets. Components made later take
`pn.config.design` and `pn.config.theme`, set here too. Reads the private `_design` that
`Viewable._update_design` sets, to leave components already in the theme alone.
"""

from __future__ import annotations

from functools import cache

import panel as pn

from ..plotkit.design import ExplorerDesign

PANEL_THEMES = {"light": "default", "dark": "dark"}


@cache
def design_for(theme: str) -> ExplorerDesign:
    """The page's design in the theme named (our "light" is Panel's "default")."""
    return ExplorerDesign(theme=PANEL_THEMES.get(theme, "default"))


def use_design(theme: str) -> None:
    """Components made from now on take the page's design in theme."""
    pn.config.design = ExplorerDesign
    pn.config.theme = PANEL_THEMES.get(theme, "default")


def in_theme(component, theme: str) -> bool:
    """Whether component is drawn with the page's design in theme."""
    design = getattr(component, "_design", None)
    return (
        isinstance(design, ExplorerDesign)
        and design.theme is not None
        and design.theme._name == PANEL_THEMES.get(theme, "default")
    )


def apply_theme(root: pn.viewable.Viewable, theme: str) -> None:
    """Give every component under root that is not in theme the page's design in it, on every
    page showing root."""
    use_design(theme)
    stale = [component for component in root.select() if not in_theme(component, theme)]
    if not stale:
        return
    design = design_for(theme)
    for component in stale:
        component.design = design
    for model, _ in list(root._models.values()):
        design.apply(root, model)
