"""ExplorerPage: the whole explorer (header, explanation, controls and linked views)."""

from __future__ import annotations

import panel as pn
import param

from .controls import Controls
from .registry import VIEWS
from .state import ExplorerState

TITLE = "Positional Encoding Explorer"

# The equations as MathML: browsers render it natively, so no maths library is downloaded.
EQUATIONS = """
<div class="pe-equations" role="group" aria-label="The positional encoding equations">
<math display="block"><mrow>
  <mi>PE</mi><mo>(</mo><mi>pos</mi><mo>,</mo><mn>2</mn><mi>i</mi><mo>)</mo><mo>=</mo>
  <mi>sin</mi><mo>(</mo><mfrac><mi>pos</mi>
  <msup><mn>10000</mn><mrow><mn>2</mn><mi>i</mi><mo>/</mo><msub><mi>d</mi><mtext>model</mtext></msub></mrow></msup>
  </mfrac><mo>)</mo></mrow></math>
<math display="block"><mrow>
  <mi>PE</mi><mo>(</mo><mi>pos</mi><mo>,</mo><mn>2</mn><mi>i</mi><mo>+</mo><mn>1</mn><mo>)</mo><mo>=</mo>
  <mi>cos</mi><mo>(</mo><mfrac><mi>pos</mi>
  <msup><mn>10000</mn><mrow><mn>2</mn><mi>i</mi><mo>/</mo><msub><mi>d</mi><mtext>model</mtext></msub></mrow></msup>
  </mfrac><mo>)</mo></mrow></math>
</div>
"""

INTRODUCTION = f"""
<header class="pe-header">
<h1>{TITLE}</h1>
<p>A Transformer sees its input as a set; the sinusoidal positional encoding of
<cite>Attention Is All You Need</cite> (Vaswani et al., 2017) tells it where each token
stands. Position <var>pos</var> becomes a vector of <var>d</var><sub>model</sub> numbers:
pairs of a sine and a cosine whose wavelengths grow geometrically from 2π to
10000·2π. Move the controls: every view below follows.</p>
{EQUATIONS}
</header>
"""

PAGE_STYLE = """
:host { width: 100%; }
.pe-header h1 { margin: 0.2em 0 0.3em; font-size: 1.7em; }
.pe-header p { max-width: 60em; line-height: 1.5; margin: 0.3em 0; }
.pe-equations { display: flex; flex-wrap: wrap; gap: 0.5em 3em; font-size: 1.15em;
                margin: 0.6em 0; justify-content: flex-start; }
.pe-equations math { margin: 0.2em 0; }
"""

CARD_STYLE = """
h2 { font-size: 1.15em; margin: 0.8em 0 0.2em; }
p { margin: 0 0 0.3em; line-height: 1.45; max-width: 48em; }
"""

VIEW_CARD = {"flex": "1 1 520px", "min-width": "0", "max-width": "100%"}


class ExplorerPage(pn.viewable.Viewer):
    """The explorer: controls and the linked views of one ExplorerState."""

    state = param.ClassSelector(class_=ExplorerState, doc="The shared explorer state.")

    def __init__(self, **params):
        params.setdefault("state", ExplorerState())
        super().__init__(**params)
        self.controls = Controls(state=self.state)
        self.views = {spec.name: spec.make(self.state) for spec in VIEWS}

    def view_card(self, spec) -> pn.Column:
        """A view with its title and explanation."""
        intro = pn.pane.HTML(
            f"<h2>{spec.title}</h2><p>{spec.explanation}</p>",
            sizing_mode="stretch_width",
            stylesheets=[CARD_STYLE],
            margin=(0, 8),
        )
        return pn.Column(
            intro, self.views[spec.name], styles=VIEW_CARD, css_classes=[f"pe-view-{spec.name}"]
        )

    def __panel__(self):
        header = pn.pane.HTML(
            INTRODUCTION, sizing_mode="stretch_width", stylesheets=[PAGE_STYLE], margin=(0, 10)
        )
        controls = pn.Column(
            pn.pane.HTML("<h2>Controls</h2>", margin=(0, 10)),
            self.controls,
            styles={"flex": "0 1 300px", "min-width": "260px"},
            css_classes=["pe-controls"],
        )
        views = pn.FlexBox(
            *(self.view_card(spec) for spec in VIEWS),
            flex_wrap="wrap",
            styles={"flex": "1 1 560px", "min-width": "0"},
        )
        body = pn.FlexBox(controls, views, flex_wrap="wrap", align_items="flex-start")
        return pn.Column(header, body, sizing_mode="stretch_width", css_classes=["pe-page"])
