"""Export / Code of the model view: a standalone NumPy script that recomputes every layer type's
inv_freq from its parameters, as transformers' modeling_rope_utils.py does, and checks them
against the numbers the page drew (written in)."""

from __future__ import annotations

import json

from .types import ModelPositions

FORMULAS = """
def default(dim, base):
    return 1.0 / base ** (np.arange(0, dim, 2) / dim)


def linear(dim, base, p, original, top):  # _compute_linear_scaling_rope_parameters
    return default(dim, base) / p["factor"]


def dynamic(dim, base, p, original, top):  # _compute_dynamic_ntk_parameters at seq_len = top
    grown = base * (p["factor"] * top / original - (p["factor"] - 1)) ** (dim / (dim - 2))
    return default(dim, grown)


def llama3(dim, base, p, original, top):  # _compute_llama3_parameters
    inv = default(dim, base)
    low, high, factor = p.get("low_freq_factor", 1.0), p.get("high_freq_factor", 4.0), p["factor"]
    wavelen = 2 * math.pi / inv
    out = np.where(wavelen > original / low, inv / factor, inv)
    medium = ~(wavelen < original / high) & ~(wavelen > original / low)
    if medium.any():
        smooth = (original / wavelen - low) / (high - low)
        out = np.where(medium, (1 - smooth) * out / factor + smooth * out, out)
    return out


def yarn(dim, base, p, original, top):  # _compute_yarn_parameters
    factor = p.get("factor") or top / original
    def correction(turns):
        return dim * math.log(original / (turns * 2 * math.pi)) / (2 * math.log(base))
    low, high = correction(p.get("beta_fast") or 32), correction(p.get("beta_slow") or 1)
    if p.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(dim // 2) - low) / (high - low), 0, 1)
    keep = 1 - ramp
    inv = default(dim, base)
    return inv / factor * (1 - keep) + inv * keep


def longrope(dim, base, p, original, top):  # _compute_longrope_parameters beyond the original
    return default(dim, base) / np.array(p["long_factor"])


def rope_freqs(dim, base, p, original, top):  # a GGUF's divisors per pair (llama.cpp)
    return default(dim, base) / np.array(p["divisors"])


def proportional(dim, base, p, original, top, head_dim):  # _compute_proportional_rope_parameters
    angles = dim // 2
    inv = np.zeros(head_dim // 2)
    inv[:angles] = 1.0 / base ** (np.arange(0, 2 * angles, 2) / head_dim)
    return inv / p.get("factor", 1.0)
"""


def model_program(model: ModelPositions) -> str:
    """The script: the layer types' parameters and the page's inv_freq written in, recomputed."""
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
            }
        )
    header = (
        f"# inv_freq of every layer type of {model.name}, recomputed with the formulas of\n"
        "# transformers' src/transformers/modeling_rope_utils.py, and compared with the page's.\n"
        "import json\nimport math\n\nimport numpy as np\n"
    )
    body = (
        f"\nORIGINAL, TOP = {model.original_context!r}, {model.max_context!r}\n"
        f"LAYER_TYPES = json.loads({json.dumps(json.dumps(types))})\n\n"
        "for t in LAYER_TYPES:\n"
        "    kind, p = t['scaling'].get('type', 'default'), t['scaling']\n"
        "    dim, base = t['rotary_dim'], t['theta']\n"
        "    if kind in ('default', 'mrope'):\n"
        "        inv = default(dim, base)\n"
        "    elif kind == 'proportional':\n"
        "        inv = proportional(dim, base, p, ORIGINAL, TOP, t['head_dim'])\n"
        "    else:\n"
        "        inv = globals()[kind](dim, base, p, ORIGINAL, TOP)\n"
        "    same = np.allclose(inv, t['page'], rtol=1e-9, atol=0)\n"
        "    print(f\"{t['kind']} (layers {t['layers'][0]}…{t['layers'][-1]}): \"\n"
        '          f"{inv.size} pairs, {inv[0]:.9g} … {inv[-1]:.9g}, same as the page: {same}")\n'
    )
    return header + FORMULAS + body
