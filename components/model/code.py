"""Export / Code of the model view: a standalone NumPy script that recomputes every layer type's
inv_freq and attention factor from its parameters, with the rope types' own functions
(rope_types.py, as transformers' modeling_rope_utils.py computes them), and checks them against
the numbers the page drew (written in)."""

from __future__ import annotations

import dataclasses
import json

from ..code_templates import rope_type_source
from ..rope_types import ROPE_INIT_FUNCTIONS
from .types import ModelPositions

BODY = """
for t in LAYER_TYPES:
    kind, rope = t['scaling'].get('type', 'default'), t['scaling']
    dim, base, length, forward = t['rotary_dim'], t['theta'], TOP, t['forward']
    if forward and forward['short_factors']:  # its forward runs LongRoPE with no length
        rope, length = {'factor': TOP / ORIGINAL, **rope}, ORIGINAL
    if kind == 'proportional':
        inv, attention = proportional(rope, dim, base, ORIGINAL, length, t['head_dim'])
    else:
        inv, attention = ROPE_INIT_FUNCTIONS[kind](rope, dim, base, ORIGINAL, length)
    if forward and forward['scale_key']:  # its forward's scale on cos and sin, past ORIGINAL
        attention = rope[forward['scale_key']]
    same = np.allclose(inv, t['page'], rtol=1e-9, atol=0)
    same = same and math.isclose(attention, t['page_attention'], rel_tol=1e-9)
    print(f"{t['kind']} (layers {t['layers'][0]}…{t['layers'][-1]}): "
          f"{inv.size} pairs, {inv[0]:.9g} … {inv[-1]:.9g}, attention factor {attention:.9g}, "
          f"same as the page: {same}")
"""


def model_program(model: ModelPositions) -> str:
    """The script: the layer types' parameters and the page's numbers written in, recomputed."""
    types = []
    for layer, indices in model.layer_types():
        if layer.method != "rope" or layer.inv_freq is None:
            continue
        scaling = {
            k: v for k, v in layer.scaling.items() if isinstance(v, (int, float, str, list, bool))
        }
        types.append(
            {
                "layers": indices,
                "kind": layer.kind,
                "theta": layer.theta,
                "head_dim": layer.head_dim,
                "rotary_dim": layer.rotary_dim,
                "scaling": scaling,
                "page": [float(v) for v in layer.inv_freq],
                "page_attention": float(layer.attention_factor),
                "forward": layer.forward and dataclasses.asdict(layer.forward),
            }
        )
    kinds = sorted({t["scaling"].get("type", "default") for t in types} or {"default"})
    table = ", ".join(f"{kind!r}: {ROPE_INIT_FUNCTIONS[kind].__name__}" for kind in kinds)
    header = (
        f"# inv_freq of every layer type of {model.name}, recomputed with the functions of\n"
        "# pe_explorer's rope_types.py (as transformers' modeling_rope_utils.py computes them),\n"
        "# and compared with the page's.\n"
        + "".join(
            f"# {t['kind']} as its rotary forward runs it: {t['forward']['source']}.\n"
            for t in types
            if t["forward"]
        )
        + "import json\nimport math\n\nimport numpy as np\n\n\n"
    )
    constants = (
        f"\n\nROPE_INIT_FUNCTIONS = {{{table}}}\n"
        f"ORIGINAL, TOP = {model.original_context!r}, {model.max_context!r}\n"
        f"LAYER_TYPES = json.loads({json.dumps(json.dumps(types))})\n"
    )
    return header + rope_type_source(*kinds) + constants + BODY
