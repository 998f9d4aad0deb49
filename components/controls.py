"""Widgets for ExplorerState: built from its parameters, so they inherit bounds and labels."""

from __future__ import annotations

import panel as pn
import param

from .state import MAX_CHOSEN_PAIRS, ExplorerState

D_MODEL_PRESETS = (4, 16, 64, 128, 512)


class Controls(pn.viewable.Viewer):
    """The explorer's controls: pos, k, d_model (with presets), sequence length and pairs."""

    state = param.ClassSelector(class_=ExplorerState, doc="The shared explorer state.")

    def __init__(self, **params):
        super().__init__(**params)
        state = self.state
        self.pos = pn.widgets.IntSlider.from_param(
            state.param.pos, sizing_mode="stretch_width", css_classes=["pe-control-pos"]
        )
        self.offset = pn.widgets.IntSlider.from_param(
            state.param.offset, sizing_mode="stretch_width", css_classes=["pe-control-offset"]
        )
        self.d_model = pn.widgets.IntSlider.from_param(
            state.param.d_model, sizing_mode="stretch_width", css_classes=["pe-control-d-model"]
        )
        self.n_positions = pn.widgets.IntSlider.from_param(
            state.param.n_positions,
            sizing_mode="stretch_width",
            css_classes=["pe-control-n-positions"],
        )
        self.presets = [
            pn.widgets.Button(
                name=str(value),
                button_type="light",
                width=52,
                margin=(0, 4, 4, 0),
                description=f"Set d_model to {value}",
                css_classes=[f"pe-preset-{value}"],
            )
            for value in D_MODEL_PRESETS
        ]
        for button, value in zip(self.presets, D_MODEL_PRESETS, strict=True):
            button.on_click(lambda event, value=value: setattr(state, "d_model", value))
        self.pairs = pn.widgets.MultiChoice(
            name="Pairs i shown as waves",
            options=list(range(state.d_model // 2)),
            value=state.chosen_pairs,
            max_items=MAX_CHOSEN_PAIRS,
            sizing_mode="stretch_width",
            css_classes=["pe-control-pairs"],
        )
        self._syncing_pairs = False
        self.pairs.param.watch(self._pairs_chosen, "value")
        state.param.watch(self._show_pairs, ["d_model", "pairs"])

    def _pairs_chosen(self, event):
        if not self._syncing_pairs:
            self.state.pairs = sorted(int(i) for i in event.new)

    def _show_pairs(self, *events):
        """Show the pairs in use (the visitor's, or the spread chosen for this d_model)."""
        self._syncing_pairs = True
        try:
            options = list(range(self.state.d_model // 2))
            if options != self.pairs.options:
                self.pairs.options = options
            self.pairs.value = self.state.chosen_pairs
        finally:
            self._syncing_pairs = False

    def widgets(self, names=None) -> list:
        """The widgets for the named controls (all of them by default), in page order."""
        every = {
            "pos": [self.pos],
            "offset": [self.offset],
            "d_model": [
                self.d_model,
                pn.Row(
                    pn.pane.HTML("<span>Presets</span>", width=64, margin=(6, 0, 0, 10)),
                    *self.presets,
                    sizing_mode="stretch_width",
                    styles={"flex-wrap": "wrap"},
                ),
            ],
            "n_positions": [self.n_positions],
            "pairs": [self.pairs],
        }
        chosen = every if names is None else [name for name in every if name in names]
        return [widget for name in chosen for widget in every[name]]

    def __panel__(self):
        return pn.Column(*self.widgets(), sizing_mode="stretch_width")
