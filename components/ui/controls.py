"""Widgets for ExplorerState: built from its parameters, so they inherit bounds and labels.

The controls whose range depends on other parameters (pos, k, the rotation pair and the pair
picker; ExplorerState.limits) are kept in step in one place, Controls._show_limits: each gets
its new range before its value, in one update, and offers no value the state would move.
"""

from __future__ import annotations

import html
import logging
from functools import partial
from types import SimpleNamespace

import panel as pn
import param

from ..fixes.slider import Slider
from ..methods import MAX_SEED, METHOD_LABELS
from ..mistakes.types import MISTAKE_FAMILIES
from ..model.presets import PRESETS
from ..plotkit.frame import WhileShown
from ..plotkit.presets import preset_buttons
from ..scaling import PARAMETERS, SCALING_LABELS
from ..state import (
    LENGTHS_SETTINGS,
    MAX_CHOSEN_PAIRS,
    MAX_FACTORS_CHARS,
    MAX_TEXT_CHARS,
    MISTAKE_SETTINGS,
    ExplorerState,
    lengths_of,
)
from .player import Player
from .throttle import Throttle

D_MODEL_PRESETS = (4, 16, 64, 128, 512)
# Stops of the base slider: a 1-2-5 log scale from 10 to 100 000.
BASE_STOPS = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000,
              200000, 500000, 1000000)  # fmt: skip
# Stops of the RoPE scaling factor s and of the trained context L (powers of two, 256 … 1M).
FACTOR_STOPS = (1, 1.5, 2, 3, 4, 6, 8, 16, 32, 64, 128)
CONTEXT_STOPS = tuple(2**power for power in range(8, 21))
# How many pairs the pair picker lists, and how many matches of a typed number it shows.
PAIRS_LISTED = 64
PAIRS_FOUND = 16
# The spinner's up and down buttons side by side, each as tall as the box: targets of at least
# 24 × 24 px (WCAG 2.2, 2.5.8), where BokehJS stacks two half-height ones.
SPINNER_STYLE = """
:host .bk-spin-wrapper > .bk-spin-btn { height: 100%; width: 30px; top: 0; bottom: auto; }
:host .bk-spin-wrapper > .bk-spin-btn.bk-spin-btn-down { right: 30px; }
:host .bk-spin-wrapper input { padding-right: 64px; }
"""
# The sliders' handles on a phone or under a finger: 28 × 28 px instead of 14 × 18 (WCAG 2.2,
# 2.5.8); noUiSlider already sets touch-action: none on them, so a drag never scrolls the page.
SLIDER_STYLE = """
@media (max-width: 600px), (pointer: coarse) {
  :host { --handle-width: 28px; --handle-height: 28px; }
}
"""
# The chosen pairs' chips in text of 14 px on a phone (Choices.js writes 12 px), and each chip's
# remove button a target of 24 × 24 px (WCAG 2.2, 2.5.8; Choices.js draws it 8 px wide).
PAIRS_STYLE = """
@media (max-width: 600px) { .choices__list--multiple .choices__item { font-size: 14px; } }
.choices[data-type*="select-multiple"] .choices__button {
  width: 24px; height: 24px; margin: -4px -6px -4px 6px; padding: 0; background-size: 10px;
  background-position: center; border-left: 1px solid rgba(255, 255, 255, 0.5);
}
"""
# The mistakes' own settings, each shown while its mistake is chosen; those drawn as buttons
# get a label of their own; typed lengths are short ("512, 1024, 2048, 512").
MISTAKE_OWN_NAMES = tuple(
    dict.fromkeys(name for names in MISTAKE_SETTINGS.values() for name in names.values())
)
BUTTONS = ("precision", "precision_place", "scaling_mistake", "query_at", "mistake_on")
MAX_LENGTHS_CHARS = 80
SIMILARITY_LABELS = {"Dot product": "dot", "Cosine similarity": "cosine"}
log = logging.getLogger(__name__)
# The sliders whose range depends on other parameters (ExplorerState.limits).
BOUNDED_SLIDERS = ("pos", "offset", "rotation_pair", "train_length")
# The sliders whose every value the page shows from the views' picks (plotkit/picks.py), and
# what their value, whoever set it, runs in the page: it tells the picker (components/js/
# picker.js). Panel runs it in a try block that only logs: the event's listener reports its own.
PICKED = ("pos", "offset")
PICK_CODE = (
    "document.dispatchEvent(new CustomEvent('pe-pick', "
    "{detail: {axis: 'AXIS', value: cb_obj.value, doc: cb_obj.document}}));"
)
# Each RoPE scaling method's own controls (scaling.PARAMETERS, by the state's names): a card
# shows the chosen method's alone; a link keeps every method's values all the same.
METHOD_CONTROLS = {
    method: tuple({"factors": "longrope_factors"}.get(name, name) for name in parameters)
    for method, parameters in PARAMETERS.items()
}


def css_class(name: str) -> str:
    """The CSS class of a parameter's control, by which the tests and the fixes find it."""
    return f"pe-control-{name.replace('_', '-')}"


def stop_options(stops, value, options: dict | None = None, kind=float) -> dict:
    """A log-scale slider's stops as {label: value}, with value (from a link, say) added in
    order: the base, the scaling factor and the trained context use it."""
    values = {kind(stop) for stop in stops} | set((options or {}).values()) | {kind(value)}
    return {f"{value:g}": value for value in sorted(values)}


def stops_slider(state: ExplorerState, name: str, stops, kind=float) -> pn.widgets.DiscreteSlider:
    """A slider over stops for a parameter, both ways linked; a value from a link is added."""
    parameter = state.param[name]
    slider = pn.widgets.DiscreteSlider(
        label=f"{parameter.label} (log scale)",
        options=stop_options(stops, getattr(state, name), kind=kind),
        value=kind(getattr(state, name)),
        sizing_mode="stretch_width",
        css_classes=[css_class(name)],
    )

    def show(event):
        if event.new not in slider.options.values():
            slider.options = stop_options(stops, event.new, slider.options, kind)
        slider.value = kind(event.new)

    slider.param.watch(lambda event: setattr(state, name, kind(event.new)), "value")
    state.param.watch(show, name)
    return slider


def control_label(text: str) -> pn.pane.HTML:
    """A label for a widget that draws none itself (button groups)."""
    return pn.pane.HTML(f"<span>{text}</span>", margin=(6, 10, 0, 10))


def bounded_slider(state: ExplorerState, name: str) -> Slider:
    """A slider for a parameter of ExplorerState.limits, offering just the values it may take.

    Not from_param: Panel would also follow the parameter's own (wider) bounds.
    """
    parameter = state.param[name]
    start, end = state.limits()[name]
    return Slider(
        label=parameter.label,
        value=getattr(state, name),
        start=start,
        end=end,
        sizing_mode="stretch_width",
        css_classes=[css_class(name)],
    )


def number_input(state: ExplorerState, name: str, widget=pn.widgets.FloatInput, **extra):
    """A number box for a parameter (from_param: its bounds, label and step), with spin buttons
    large enough to tap."""
    return widget.from_param(
        state.param[name],
        sizing_mode="stretch_width",
        css_classes=[css_class(name)],
        stylesheets=[SPINNER_STYLE],
        **extra,
    )


def two_buttons(state: ExplorerState, name: str, options: dict) -> pn.widgets.RadioButtonGroup:
    """A true/false parameter as two named buttons (from_param, both ways linked).

    Not a checkbox: BokehJS's checkbox input has no label of its own that axe accepts, and the
    buttons say what each choice means.
    """
    return pn.widgets.RadioButtonGroup.from_param(
        state.param[name],
        options=options,
        sizing_mode="stretch_width",
        css_classes=[css_class(name)],
    )


class Controls(pn.viewable.Viewer):
    """The explorer's controls, made from the state's parameters a group at a time: the
    encoding, the pairs, the position methods, RoPE scaling, the relative methods, the sentence."""

    state = param.ClassSelector(class_=ExplorerState, doc="The shared explorer state.")

    def __init__(self, **params):
        super().__init__(**params)
        self._encoding_controls()
        self._pair_controls()
        self._method_controls()
        self._keep_bounded_sliders_in_step()
        self._scaling_controls()
        self._relative_controls()
        self._sentence_control()
        self._model_control()
        self._mistake_controls()
        for slider in self.sliders():
            slider.stylesheets = [*slider.stylesheets, SLIDER_STYLE]

    def _encoding_controls(self) -> None:
        """pos and k, d_model with its presets, the sequence length, the base and the layout."""
        state = self.state
        self.pos = bounded_slider(state, "pos")
        self.offset = bounded_slider(state, "offset")
        self.d_model = Slider.from_param(
            state.param.d_model, sizing_mode="stretch_width", css_classes=[css_class("d_model")]
        )
        self.n_positions = Slider.from_param(
            state.param.n_positions,
            sizing_mode="stretch_width",
            css_classes=[css_class("n_positions")],
        )
        self.presets = preset_buttons(
            D_MODEL_PRESETS,
            partial(setattr, state, "d_model"),
            lambda value: (str(value), f"Set d_model to {value}", f"pe-preset-{value}"),
            width=52,
            margin=(0, 4, 4, 0),
        )
        self.base = stops_slider(state, "base", BASE_STOPS)
        self.layout = pn.widgets.RadioButtonGroup.from_param(
            state.param.layout, sizing_mode="stretch_width", css_classes=[css_class("layout")]
        )

    def _pair_controls(self) -> None:
        """The pairs the waves view draws, the rotation view's pair, and what the dot-product
        view shows."""
        state = self.state
        self.pairs = pn.widgets.MultiChoice(
            label="Pairs i shown as waves",
            options=list(range(state.d_model // 2)),
            value=state.chosen_pairs,
            max_items=MAX_CHOSEN_PAIRS,
            # The list shows the first pairs; typing finds any other. With d_model 2048 it would
            # otherwise redraw 1024 hidden entries on every step of d_model.
            option_limit=PAIRS_LISTED,
            search_option_limit=PAIRS_FOUND,
            placeholder="Type a pair number",
            sizing_mode="stretch_width",
            css_classes=[css_class("pairs")],
            stylesheets=[PAIRS_STYLE],
        )
        self._syncing_pairs = False
        self._pairs_while_shown = WhileShown(self._update_pairs)
        self.pairs.param.watch(self._pairs_chosen, "value")
        self.rotation_pair = bounded_slider(state, "rotation_pair")
        self.similarity = pn.widgets.RadioButtonGroup.from_param(
            state.param.similarity,
            options=SIMILARITY_LABELS,
            sizing_mode="stretch_width",
            css_classes=[css_class("similarity")],
        )

    def _method_controls(self) -> None:
        """The position method, the player of pos, ALiBi's heads, the seed of q and k and the
        training length."""
        state = self.state
        self.train_length = bounded_slider(state, "train_length")
        self.player = Player(state=state)
        self.method = pn.widgets.RadioButtonGroup.from_param(
            state.param.method,
            options={label: name for name, label in METHOD_LABELS.items()},
            sizing_mode="stretch_width",
            css_classes=[css_class("method")],
        )
        self.heads = Slider.from_param(
            state.param.heads, sizing_mode="stretch_width", css_classes=[css_class("heads")]
        )
        self.seed = pn.widgets.IntInput.from_param(
            state.param.seed,
            width=140,
            css_classes=[css_class("seed")],
            stylesheets=[SPINNER_STYLE],
        )
        self.reseed = pn.widgets.Button(
            label="New q and k",
            width=120,
            margin=(22, 10, 4, 4),
            description="Draw another random query and key (the next seed)",
            css_classes=["pe-control-reseed"],
        )
        self.reseed.on_click(
            lambda event: setattr(state, "seed", (state.seed + 1) % (MAX_SEED + 1))
        )

    def _keep_bounded_sliders_in_step(self) -> None:
        """A bounded slider moved sets the state; the state moved sets every bounded control.

        pos and k reach the state throttled (ui/throttle.py): the page shows each of their values
        at once from the views' picks, and each value they take, from any source, tells the
        page's picker in the browser (PICK_CODE).
        """
        self._throttles = {}
        for name in BOUNDED_SLIDERS:
            slider = getattr(self, name)
            if name in PICKED:
                throttle = Throttle(partial(self._slider_settled, name))
                self._throttles[name] = throttle
                slider.param.watch(lambda event, t=throttle: t.push(), "value")
                slider.param.watch(lambda event, t=throttle: t.flush(), "value_throttled")
                slider.jscallback(value=PICK_CODE.replace("AXIS", name))
            else:
                slider.param.watch(partial(self._slider_moved, name), "value")
        self.state.param.watch(
            self._show_limits, [*BOUNDED_SLIDERS, "n_positions", "d_model", "pairs"]
        )

    def _scaling_controls(self) -> None:
        """The RoPE scaling method, its factor and trained context, and each method's own
        parameters."""
        state = self.state
        self.scaling = pn.widgets.Select.from_param(
            state.param.scaling,
            options={label: name for name, label in SCALING_LABELS.items()},
            sizing_mode="stretch_width",
            css_classes=[css_class("scaling")],
        )
        self.factor = stops_slider(state, "factor", FACTOR_STOPS)
        self.original_context = stops_slider(state, "original_context", CONTEXT_STOPS, int)
        self.seq_len = number_input(state, "seq_len", pn.widgets.IntInput, step=1024)
        self.beta_fast = number_input(state, "beta_fast", step=1.0)
        self.beta_slow = number_input(state, "beta_slow", step=0.25)
        self.truncate = two_buttons(state, "truncate", {"Whole pairs": True, "Exact ends": False})
        self.low_freq_factor = number_input(state, "low_freq_factor", step=0.5)
        self.high_freq_factor = number_input(state, "high_freq_factor", step=0.5)
        # Not from_param, as the sentence: text the state refuses is turned away with a log line.
        self.longrope_factors = pn.widgets.TextAreaInput(
            label=state.param.longrope_factors.label,
            value=state.longrope_factors,
            max_length=MAX_FACTORS_CHARS,
            placeholder="d/2 numbers, e.g. 1.0, 1.02, 1.1, …",
            rows=3,
            sizing_mode="stretch_width",
            css_classes=[css_class("longrope_factors")],
        )
        self.longrope_factors.param.watch(self._factors_typed, "value")
        state.param.watch(
            lambda event: setattr(self.longrope_factors, "value", event.new), "longrope_factors"
        )
        self._method_controls_shown()

    def _method_controls_shown(self) -> None:
        """Each scaling method's own controls in a group of their own, shown while that method is
        chosen, and a line under the method saying so."""
        own = {"truncate": [control_label(self.state.param.truncate.label), self.truncate]}
        self.method_groups = {
            name: pn.Column(
                *own.get(name, [getattr(self, name)]), margin=0, sizing_mode="stretch_width"
            )
            for names in METHOD_CONTROLS.values()
            for name in names
        }
        self.scaling_note = pn.pane.HTML(margin=(0, 10, 4, 10), css_classes=["pe-scaling-note"])
        self.state.param.watch(self._show_method_controls, "scaling")
        self._show_method_controls()

    def _show_method_controls(self, *events) -> None:
        chosen = self.state.scaling
        for method, names in METHOD_CONTROLS.items():
            for name in names:
                self.method_groups[name].visible = method == chosen
        label = SCALING_LABELS[chosen]
        own = f"Below s and L: {label}'s own parameters."
        if not METHOD_CONTROLS[chosen]:
            own = f"{label} has no parameters besides s and L."
        self.scaling_note.object = (
            f"<span>{own} The other methods' show when you choose one.</span>"
        )

    def _relative_controls(self) -> None:
        """T5's buckets, max_distance and direction, and Shaw et al.'s clipping distance."""
        state = self.state
        self.t5_buckets = number_input(state, "t5_buckets", pn.widgets.IntInput, step=2)
        self.t5_max_distance = number_input(state, "t5_max_distance", pn.widgets.IntInput, step=16)
        self.t5_bidirectional = two_buttons(
            state, "t5_bidirectional", {"Encoder: both sides": True, "Decoder: causal": False}
        )
        self.shaw_clip = Slider.from_param(
            state.param.shaw_clip, sizing_mode="stretch_width", css_classes=[css_class("shaw_clip")]
        )

    def _model_control(self) -> None:
        """The published model of the model view, by name."""
        self.model = pn.widgets.Select.from_param(
            self.state.param.model,
            options={entry["label"]: name for name, entry in PRESETS.items()},
            sizing_mode="stretch_width",
            css_classes=[css_class("model")],
        )

    def _mistake_controls(self) -> None:
        """The mistakes view's choice, by family, and its settings: a low-precision mistake's
        format and place, the scaling mistake's way, the query's position, the layer."""
        state = self.state
        self.mistake = pn.widgets.Select(
            label=state.param.mistake.label,
            groups={
                family: {words: name for name, words in mistakes.items()}
                for family, mistakes in MISTAKE_FAMILIES.items()
            },
            value=state.mistake,
            sizing_mode="stretch_width",
            css_classes=[css_class("mistake")],
        )
        self.mistake.param.watch(lambda event: setattr(state, "mistake", event.new), "value")
        state.param.watch(lambda event: setattr(self.mistake, "value", event.new), "mistake")
        choices = {
            "precision": {"bfloat16": "bf16", "float16": "fp16"},
            "precision_place": {
                "pos × inv_freq": "product",
                "positions": "positions",
                "cos, sin cached": "cache",
            },  # fmt: skip
            "scaling_mistake": {"Dropped": "dropped", "Applied twice": "twice"},
            "query_at": {"4k": "4k", "32k": "32k", "128k": "128k", "Its context": "context"},
            "mistake_on": {
                "The model's layer": "model",
                "Plain RoPE": "rope",
                "Your model": "upload",
            },
        }
        for name, options in choices.items():
            buttons = pn.widgets.RadioButtonGroup.from_param(
                state.param[name],
                options=options,
                sizing_mode="stretch_width",
                css_classes=[css_class(name)],
            )
            setattr(self, name, buttons)
        self._mistake_own_controls()
        state.param.watch(self._show_mistake_settings, "mistake")
        self._show_mistake_settings()

    def _mistake_own_controls(self) -> None:
        """The other mistakes' settings: a cache's window and sinks, the lengths of padded rows
        and packed documents (typed, checked whole), ALiBi's two head counts, the θ read instead
        and the prompt's length (the last two left empty: simulate's defaults)."""
        state, whole = self.state, pn.widgets.IntInput
        self.window = number_input(state, "window", whole, step=256)
        self.sinks = number_input(state, "sinks", whole, step=1)
        self.alibi_heads = number_input(state, "alibi_heads", whole, step=1)
        self.alibi_as_heads = number_input(state, "alibi_as_heads", whole, step=1)
        self.theta_read = number_input(
            state, "theta_read", step=10000.0, placeholder="10000 (500000 for a model at 10000)"
        )
        self.prefill = number_input(
            state, "prefill", whole, step=1024, placeholder="the layer's original context"
        )
        self.lengths_notes = {}
        for name in LENGTHS_SETTINGS:
            box = pn.widgets.TextInput(
                label=state.param[name].label,
                value=getattr(state, name),
                max_length=MAX_LENGTHS_CHARS,
                placeholder="whole numbers, e.g. 3, 7, 10",
                sizing_mode="stretch_width",
                css_classes=[css_class(name)],
            )
            box.param.watch(partial(self._lengths_typed, name), "value")
            state.param.watch(partial(self._show_lengths, name), name)
            setattr(self, name, box)
            self.lengths_notes[name] = pn.pane.HTML(
                "", margin=(0, 10, 4, 10), css_classes=["pe-lengths-note"], visible=False
            )

    def _lengths_typed(self, name: str, event) -> None:
        """Typed lengths go to the state, written 3,7,10; others are refused with a message under
        the box (the view keeps the lengths it draws)."""
        note = self.lengths_notes[name]
        try:
            lengths = lengths_of(event.new)
        except ValueError as error:
            kept = getattr(self.state, name)
            note.object = f"<span>{html.escape(str(error))}; still drawn: {kept}</span>"
            note.visible = True
            return
        note.visible = False
        setattr(self.state, name, ",".join(str(length) for length in lengths))

    def _show_lengths(self, name: str, event) -> None:
        box = getattr(self, name)
        if box.value != event.new:
            box.value = event.new

    def _show_mistake_settings(self, *events) -> None:
        """A mistake's own settings shown while it is chosen (MISTAKE_SETTINGS: the format and
        the place for low precision, the window and sinks of a cache …); the query's position
        and the layer where they count."""
        chosen, groups = self.state.mistake, self.mistake_groups
        own = set(MISTAKE_SETTINGS.get(chosen, {}).values())
        for name in MISTAKE_OWN_NAMES:
            groups[name].visible = name in own
        # Padding and packing number a short batch whatever the context; ALiBi has no layer.
        groups["query_at"].visible = chosen not in ("left_padding", "packed_documents")
        groups["mistake_on"].visible = chosen != "alibi_slopes"

    @property
    def mistake_groups(self) -> dict:
        """Each mistake setting in a column of its own (made once): the button groups with their
        label, the typed lengths with their message."""
        if not hasattr(self, "_mistake_groups"):
            self._mistake_groups = {
                name: pn.Column(
                    *([control_label(self.state.param[name].label)] if name in BUTTONS else []),
                    getattr(self, name),
                    *([self.lengths_notes[name]] if name in LENGTHS_SETTINGS else []),
                    margin=0,
                    sizing_mode="stretch_width",
                )
                for name in (*MISTAKE_OWN_NAMES, "query_at", "mistake_on")
            }
        return self._mistake_groups

    def _sentence_control(self) -> None:
        """The sentence of the tokens and NoPE views.

        Not from_param: a value the state refuses (a crafted client can send any length past
        the box's limit) is turned away here, with one log line, not a traceback.
        """
        self.text = pn.widgets.TextInput(
            label=self.state.param.text.label,
            value=self.state.text,
            max_length=MAX_TEXT_CHARS,
            placeholder="Type a sentence, then press Enter",
            sizing_mode="stretch_width",
            css_classes=[css_class("text")],
        )
        self.text.param.watch(self._text_typed, "value")
        self.state.param.watch(self._show_text, "text")

    def sliders(self) -> list:
        """Every slider, whose handles get finger-sized on a phone (SLIDER_STYLE)."""
        return [self.pos, self.offset, self.d_model, self.n_positions, self.base, self.heads,
                self.factor, self.original_context, self.shaw_clip, self.rotation_pair,
                self.train_length, self.player.speed_slider]  # fmt: skip

    def _factors_typed(self, event) -> None:
        """Pasted LongRoPE factors go to the state; text with other than numbers is turned away
        (the scaling view says what is wrong with numbers of the wrong count)."""
        try:
            self.state.longrope_factors = event.new
        except ValueError:
            log.warning("LongRoPE factors with characters other than numbers were turned away")
            self.longrope_factors.value = self.state.longrope_factors

    def _text_typed(self, event) -> None:
        """The sentence typed goes to the state; one the state refuses is turned away."""
        if len(event.new) > MAX_TEXT_CHARS:
            log.warning(
                "a sentence of %d characters was turned away (at most %d)",
                len(event.new),
                MAX_TEXT_CHARS,
            )
            self.text.value = self.state.text
            return
        self.state.text = event.new

    def _show_text(self, event) -> None:
        if self.text.value != event.new:
            self.text.value = event.new

    def _slider_settled(self, name: str) -> None:
        """A throttled slider's value, now, goes to the state."""
        self._slider_moved(name, SimpleNamespace(new=getattr(self, name).value))

    def _slider_moved(self, name: str, event) -> None:
        """A bounded slider moved: set the state (inside the limits), and show what it kept."""
        low, high = self.state.limits()[name]
        setattr(self.state, name, min(max(event.new, low), high))
        self._show_limits()

    def _show_limits(self, *events) -> None:
        """Show each bounded control's range and value; the one place they are kept in step.

        The range goes first, in the same update as the value: a slider is never sent a value
        outside the range it shows. The pair picker gets its options with its value in the same
        way, when d_model or the pairs change (and once it is on screen: _update_pairs).
        """
        limits = self.state.limits()
        for name in BOUNDED_SLIDERS:
            slider = getattr(self, name)
            start, end = limits[name]
            wanted = {"start": start, "end": end, "value": getattr(self.state, name)}
            changed = {key: value for key, value in wanted.items() if getattr(slider, key) != value}
            if changed:
                slider.param.update(changed)
        if any(event.name in ("d_model", "pairs") for event in events):
            self._show_pairs()

    def _pairs_chosen(self, event):
        if not self._syncing_pairs:
            self.state.pairs = sorted(int(i) for i in event.new)

    def follow_pairs(self, followed: bool) -> None:
        """Whether the pair picker follows the state now (it is on screen), or catches up later.

        The picker redraws itself whole for new options or a new value, and
        both change with every step of d_model: a step would pay that for a picker no one sees.
        """
        self._pairs_while_shown.set_shown(followed)

    def _show_pairs(self, *events):
        """Show the pairs in use (the visitor's, or the spread chosen for this d_model), in one
        update: the picker redraws itself for each change it is sent."""
        self._pairs_while_shown.request()

    def _update_pairs(self) -> None:
        self._syncing_pairs = True
        try:
            low, high = self.state.limits()["pairs"]
            options = list(range(low, high + 1))
            update = {"value": self.state.chosen_pairs}
            if options != self.pairs.options:
                update["options"] = options
            self.pairs.param.update(update)
        finally:
            self._syncing_pairs = False

    def widgets(self, names=None, together=(), box=None) -> list:
        """The widgets for the named controls (all of them by default), in page order; with
        box, those named in together go into box(*their widgets), where the first would be."""
        every = {
            "method": [control_label(self.state.param.method.label), self.method],
            "play": self.player.widgets(),
            "pos": [self.pos],
            "offset": [self.offset],
            "d_model": [
                self.d_model,
                control_label("Presets"),
                pn.FlexBox(
                    *self.presets, flex_wrap="wrap", sizing_mode="stretch_width", margin=(0, 10)
                ),
            ],
            "n_positions": [self.n_positions],
            "base": [self.base],
            "layout": [control_label(self.state.param.layout.label), self.layout],
            "pairs": [self.pairs],
            "similarity": [control_label(self.state.param.similarity.label), self.similarity],
            "rotation_pair": [self.rotation_pair],
            "text": [self.text],
            "heads": [self.heads],
            "seed": [pn.Row(self.seed, self.reseed, sizing_mode="stretch_width")],
            "train_length": [self.train_length],
            "scaling": [self.scaling, self.scaling_note],
            "factor": [self.factor],
            "original_context": [self.original_context],
            **{name: [group] for name, group in self.method_groups.items()},
            "t5_buckets": [self.t5_buckets],
            "t5_max_distance": [self.t5_max_distance],
            "t5_bidirectional": [
                control_label(self.state.param.t5_bidirectional.label),
                self.t5_bidirectional,
            ],
            "shaw_clip": [self.shaw_clip],
            "model": [self.model],
            "mistake": [self.mistake],
            **{name: [group] for name, group in self.mistake_groups.items()},
        }
        chosen = every if names is None else [name for name in every if name in names]
        grouped = [name for name in chosen if name in together] if box else []
        if grouped:
            every[grouped[0]] = [box(*(w for name in grouped for w in every[name]))]
            chosen = [name for name in chosen if name not in grouped[1:]]
        return [widget for name in chosen for widget in every[name]]

    def __panel__(self):
        return pn.Column(*self.widgets(), sizing_mode="stretch_width")
