"""HubFetch: a model id and a button; on the press, and only then, the visitor's browser asks the
Hugging Face Hub for the model's config.json (components/js/hub_fetch.js). What came back is
read here: the text of the config, or one plain sentence saying why there is none."""

from __future__ import annotations

from pathlib import Path

import param
from panel.custom import JSComponent

# A model id on the Hub: owner/name, each of letters, digits, '.', '_' and '-' (the browser checks
# it with this pattern before it asks).
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$"
# A config.json is a few KiB; more than this is not one, and is not read further.
MAX_BYTES = 1 << 20
WHY_NONE = {
    "bad-id": "not a model id: the Hub names a model owner/name, e.g. Qwen/Qwen3-8B",
    "unreachable": "your browser could not reach huggingface.co (offline, or blocked here)",
    "too-large": f"its config.json is over {MAX_BYTES >> 20} MiB, so it is not read",
    401: "the Hub asks for a login (a gated or private model): accept its licence on "
    "huggingface.co, then choose or paste its config.json here",
    403: "the Hub refuses it without a login (a gated model): accept its licence on "
    "huggingface.co, then choose or paste its config.json here",
    404: "the Hub has no such model, or it has no config.json",
}

# In the theme's colours (its custom properties reach into the component's shadow root); targets
# of at least 24 px.
STYLE = """
.pe-hub-form, .pe-hub-label { display: flex; flex-wrap: wrap; gap: 0.5em; align-items: center; }
.pe-hub-form { margin: 4px 8px; color: var(--pe-text, inherit); }
.pe-hub-id, .pe-hub-fetch { min-height: 28px; font: inherit; color: inherit; background: none;
  border: 1px solid currentColor; border-radius: 4px; padding: 2px 8px; }
.pe-hub-id { min-width: 16em; max-width: 100%; box-sizing: border-box; }
.pe-hub-fetch { cursor: pointer; }
"""


class HubFetch(JSComponent):
    """The browser's side: the id box and the button; `answer` once the Hub has answered."""

    label = param.String(default="Or a model on the Hugging Face Hub:", doc="The box's label.")
    placeholder = param.String(
        default="owner/name, e.g. Qwen/Qwen3-8B", doc="The empty box's hint."
    )
    button = param.String(default="Fetch its config.json", doc="The button's text.")
    pattern = param.String(default=ID_PATTERN, constant=True, doc="A model id, as a regex.")
    max_bytes = param.Integer(default=MAX_BYTES, constant=True, doc="The most bytes read.")
    answer = param.Dict(default={}, doc="What came back: id, status and, for 200, text.")

    _esm = Path(__file__).parents[1] / "js" / "hub_fetch.js"
    _stylesheets = [STYLE]


def hub_text(answer: dict) -> tuple[str, str]:
    """(model id, config text) of an answer; ValueError saying why there is no config."""
    model_id = str(answer.get("id", ""))[:200]
    status = answer.get("status")
    text = answer.get("text")
    if status == 200 and isinstance(text, str) and len(text) <= MAX_BYTES:
        return model_id, text
    why = WHY_NONE.get(status) or f"the Hub answered {str(status)[:20]}"
    raise ValueError(why)
