"""A row of preset buttons: each sets a few of the state's parameters at once when clicked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import panel as pn

Preset = TypeVar("Preset")


def preset_buttons(
    presets: Sequence[Preset],
    apply: Callable[[Preset], None],
    name: Callable[[Preset], tuple[str, str, str]],
    *,
    width: int,
    margin: tuple[int, ...],
) -> list[pn.widgets.Button]:
    """A button per preset, named by name(preset) = (label, description, CSS class), that calls
    apply(preset) when clicked."""
    buttons = []
    for preset in presets:
        label, description, css_class = name(preset)
        button = pn.widgets.Button(
            label=label,
            color="default",
            width=width,
            margin=margin,
            description=description,
            css_classes=[css_class],
        )
        button.on_click(lambda event, preset=preset: apply(preset))
        buttons.append(button)
    return buttons
