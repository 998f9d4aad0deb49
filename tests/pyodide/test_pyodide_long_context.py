"""Issue 33's views in the real Pyodide build, offline: each opens by link and answers a key press
with the numbers of its closed form; the checkers and the learned table answer bad files with a
message; bad link values get notices and never HTML.

Every expected number is computed here from the published formulas, not by the package.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from pyodide_support import test_console_has_no_errors, wait_for  # noqa: F401 (collected here)
from test_pyodide_site import DEEP_TEXT_JS

pytestmark = pytest.mark.pyodide

# The module runs in the run's shared desktop browser, from this link (tests/pyodide/conftest.py).
START = "?view=scaling&embed=1&scaling=pi&factor=4"

MINUS = "\u2212"
D, BASE = 128, 10000.0
SLOWEST = 2 * math.pi * BASE ** ((D - 2) / D)  # λ of the last pair of Llama 2 7B


def four(value: float) -> str:
    """A number as the views print it: 4 decimals, minus as U+2212."""
    return f"{value:.4f}".replace("-", MINUS)


def nine(value: float) -> str:
    """A number as the readout tables print it: 9 decimals, minus as U+2212."""
    return f"{value + 0.0:.9f}".replace("-", MINUS)


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def llama31_bands() -> dict[str, int]:
    """Meta's apply_scaling for Llama 3.1 8B: λ < 8192 / 4 kept, λ > 8192 / 1 divided by 8."""
    wavelengths = [2 * math.pi * 500000.0 ** (2 * i / D) for i in range(D // 2)]
    kept = sum(length < 8192 / 4 for length in wavelengths)
    interpolated = sum(length > 8192 / 1 for length in wavelengths)
    return {"kept": kept, "ramped": D // 2 - kept - interpolated, "interpolated": interpolated}


def ntk_inv_freq(factor: float) -> np.ndarray:
    """NTK-aware: the base raised to base·s^(d/(d−2)) (transformers' _compute_dynamic_ntk at L)."""
    raised = BASE * factor ** (D / (D - 2))
    return raised ** (-np.arange(0, D, 2) / D)


def t5_bucket(relative_position: int) -> int:
    """T5's _relative_position_bucket, bidirectional, 32 buckets, max_distance 128 (Mesh TF)."""
    buckets, bucket = 16, 0
    if relative_position > 0:
        bucket += buckets
    distance = abs(relative_position)
    if distance < 8:
        return bucket + distance
    large = 8 + int(math.log(distance / 8) / math.log(128 / 8) * (buckets - 8))
    return bucket + min(large, buckets - 1)


def xl_position_terms(d: int, seed: int, offset: int) -> float:
    """Transformer-XL's (b) + (d) = (q + v)·W_R R(offset), R = [sin(offset ω), cos(offset ω)]."""
    rng = np.random.default_rng(seed)
    q, _, _, v = (rng.standard_normal(d) / math.sqrt(d) for _ in range(4))
    w_r = rng.standard_normal((d, d)) / math.sqrt(d)
    omega = BASE ** (-np.arange(0, d, 2) / d)
    sinusoid = np.concatenate([np.sin(offset * omega), np.cos(offset * omega)])
    return float((q + v) @ (w_r @ sinusoid))


CIRCLE = np.zeros((64, 8))
CIRCLE[:, 0] = np.cos(2 * np.pi * np.arange(64) / 64)
CIRCLE[:, 1] = np.sin(2 * np.pi * np.arange(64) / 64)
BAD_LINK = (
    "view=scaling&embed=1&factor=1000&scaling=bogus&longrope_factors=%3Cb%3Ebold%3C%2Fb%3E"
    "&t5_buckets=33"
)


def text(site, selector: str) -> str | None:
    return site.page.evaluate(DEEP_TEXT_JS, selector)


def settled(site, selector: str, expected: str, timeout_s: float = 90) -> bool:
    """Whether the text of the first element matching selector becomes expected."""
    return wait_for(
        site,
        f"() => (__offline.text({selector!r}) || '').trim() === {expected!r}",
        timeout_s=timeout_s,
    )


LLAMA31_KEYS = ("scaling=llama3", "base=500000", "original_context=8192", "factor=8")


def url_holds(site, *parts: str, timeout_s: float = 90) -> bool:
    """Whether the page's link comes to hold every part (key=value) of parts."""
    checks = " && ".join(f"location.search.includes({part!r})" for part in parts)
    return wait_for(site, f"() => {checks}", timeout_s=timeout_s)


def contains(site, selector: str, part: str, timeout_s: float = 90) -> bool:
    return wait_for(
        site,
        f"() => (__offline.text({selector!r}) || '').includes({part!r})",
        timeout_s=timeout_s,
    )


def upload(site, selector: str, name: str, data: bytes) -> None:
    chooser = site.page.locator(f"{selector} input[type=file]").first
    chooser.set_input_files({"name": name, "mimeType": "application/octet-stream", "buffer": data})


def scaling_steps(site, record: dict) -> None:
    record["scaling_load"] = site.load  # START
    record["pi_bands"] = settled(site, ".pe-scaling-interpolated", str(D // 2))
    record["pi_slowest"] = settled(site, ".pe-scaling-slowest", four(4 * SLOWEST))
    # The factor slider's next stop after 4 is 6: every wavelength 6 times longer.
    site.press(".pe-control-factor .noUi-handle", "ArrowRight", 1)
    record["pi_slowest_after_key"] = settled(site, ".pe-scaling-slowest", four(6 * SLOWEST))
    # The page writes its URL after the views' readouts: wait for the URL itself.
    url_holds(site, "factor=6", "scaling=pi")
    record["scaling_search"] = site.page.evaluate("location.search")
    site.press(".pe-scaling-preset-llama31 button", "Enter", 1)
    bands = llama31_bands()
    record["llama31"] = all(
        settled(site, f".pe-scaling-{band}", str(count)) for band, count in bands.items()
    )
    url_holds(site, *LLAMA31_KEYS)
    record["llama31_search"] = site.page.evaluate("location.search")
    record["bad_load"] = site.goto(f"?{BAD_LINK}")
    record["bad_notice"] = contains(site, ".pe-notices", "longrope_factors")
    record["notices"] = text(site, ".pe-notices")
    record["bold_in_notices"] = site.page.evaluate("() => __offline.deep('.pe-notices b').length")
    record["bad_still_draws"] = settled(site, ".pe-scaling-kept", "21")  # YaRN, s 1, defaults


def checker_steps(site, record: dict) -> None:
    record["ropecheck_load"] = site.goto("?view=ropecheck&scaling=ntk&factor=8")
    box = site.page.locator(".pe-ropecheck-text textarea").first
    box.fill(", ".join(f"{value:.17g}" for value in ntk_inv_freq(8.0)))
    box.press("Tab")
    record["right"] = contains(site, ".pe-ropecheck-verdict", "It matches the config.")
    record["right_verdict"] = text(site, ".pe-ropecheck-verdict")
    # The base left as it was: exactly what the checker must name.
    box.fill(", ".join(f"{value:.17g}" for value in BASE ** (-np.arange(0, D, 2) / D)))
    box.press("Tab")
    record["unraised"] = contains(site, ".pe-ropecheck-verdict", "It does not match.")
    record["unraised_verdict"] = text(site, ".pe-ropecheck-verdict")
    upload(site, ".pe-ropecheck-file", "nan.npy", npy(np.full(D // 2, np.nan)))
    record["nan_file"] = contains(site, ".pe-ropecheck-verdict", "Not checked: NaN or infinity")
    record["nan_verdict"] = text(site, ".pe-ropecheck-verdict")
    upload(site, ".pe-ropecheck-file", "short.npy", npy(np.ones(5)))
    record["short_file"] = contains(site, ".pe-ropecheck-verdict", "got 5")
    record["short_verdict"] = text(site, ".pe-ropecheck-verdict")


def learned_steps(site, record: dict) -> None:
    record["learned_load"] = site.goto("?view=learned&n_positions=64&d_model=8")
    upload(site, ".pe-learned-file", "nan.csv", b"nan,1\n0.5,0.5\n0.1,0.2\n")
    record["learned_nan"] = contains(site, ".pe-learned-status", "Not loaded")
    record["learned_nan_status"] = text(site, ".pe-learned-status")
    upload(site, ".pe-learned-file", "<img src=x>.npy", npy(CIRCLE))
    # In the worker a file's bytes can arrive before its name: the status names it once it has.
    record["learned_circle"] = contains(site, ".pe-learned-status", "<img src=x>.npy")
    record["learned_status"] = text(site, ".pe-learned-status")
    record["learned_variance"] = text(site, ".pe-learned-learned-variance")
    record["learned_images"] = site.page.evaluate("() => __offline.deep('img[src=x]').length")


def relative_steps(site, record: dict) -> None:
    record["t5_load"] = site.goto("?view=t5&embed=1&pos=10&offset=3")
    record["t5_at_3"] = settled(site, ".pe-t5-bucket", str(t5_bucket(3)))
    site.press(".pe-control-offset .noUi-handle", "ArrowRight", 6)
    record["t5_at_9"] = settled(site, ".pe-t5-bucket", str(t5_bucket(9)))

    record["shaw_load"] = site.goto("?view=shaw&embed=1&shaw_clip=2&pos=10&offset=1")
    record["shaw_at_1"] = settled(site, ".pe-shaw-sharing", "63")  # the pairs j − i = 1 of 64
    site.press(".pe-control-offset .noUi-handle", "ArrowRight", 4)
    # k = 5 is clipped to 2: every pair j − i ≥ 2 shares a₂, Σ (64 − d) for d = 2 … 63.
    record["shaw_at_5"] = settled(site, ".pe-shaw-sharing", str(sum(64 - d for d in range(2, 64))))
    record["shaw_vector"] = text(site, ".pe-shaw-vector")

    record["xl_load"] = site.goto("?view=xl&embed=1&d_model=8&seed=4&pos=3&offset=2")
    record["xl_at_2"] = settled(site, ".pe-xl-position", nine(xl_position_terms(8, 4, 2)))
    site.press(".pe-control-offset .noUi-handle", "ArrowRight", 1)
    record["xl_at_3"] = settled(site, ".pe-xl-position", nine(xl_position_terms(8, 4, 3)))


def steps(site) -> dict:
    record: dict = {}
    scaling_steps(site, record)
    checker_steps(site, record)
    learned_steps(site, record)
    relative_steps(site, record)
    return record


def test_the_scaling_view_opens_by_link_and_follows_the_factor_slider(visit):
    assert visit["scaling_load"]["interactive"], visit["scaling_load"]["error"]
    assert visit["pi_bands"] and visit["pi_slowest"]
    assert visit["pi_slowest_after_key"]
    assert "factor=6" in visit["scaling_search"] and "scaling=pi" in visit["scaling_search"]


def test_the_llama_31_preset_gives_meta_s_bands_from_the_keyboard(visit):
    assert visit["llama31"]
    for part in LLAMA31_KEYS:
        assert part in visit["llama31_search"]


def test_bad_scaling_link_values_get_notices_and_no_html(visit):
    assert visit["bad_load"]["interactive"], visit["bad_load"]["error"]
    assert visit["bad_notice"], visit["notices"]
    notices = visit["notices"]
    assert "factor: 1000.0 is outside 1.0 … 128.0; used the nearest value 128.0" in notices
    assert "scaling: 'bogus' is not one of none, pi, ntk" in notices
    assert "longrope_factors: '<b>bold</b>' holds characters other than numbers" in notices
    assert "t5_buckets: 33 is odd; used 34" in notices
    assert visit["bold_in_notices"] == 0
    assert visit["bad_still_draws"]


def test_the_rope_checker_says_match_and_names_the_unraised_base(visit):
    assert visit["ropecheck_load"]["interactive"], visit["ropecheck_load"]["error"]
    assert visit["right"], visit["right_verdict"]
    assert visit["unraised"], visit["unraised_verdict"]
    assert "Likely bug: the base was not raised (NTK skipped)" in visit["unraised_verdict"]


def test_the_rope_checker_answers_bad_files_with_a_message(visit):
    assert visit["nan_file"], visit["nan_verdict"]
    assert visit["short_file"], visit["short_verdict"]
    assert "must have d_head / 2 = 64 numbers" in visit["short_verdict"]


def test_a_learned_table_is_read_checked_and_escaped(visit):
    assert visit["learned_load"]["interactive"], visit["learned_load"]["error"]
    assert visit["learned_nan"], visit["learned_nan_status"]
    assert visit["learned_circle"], visit["learned_status"]
    assert "64 positions × 8 dimensions" in visit["learned_status"]
    assert visit["learned_images"] == 0
    # A circle lies in a plane: its two principal components explain all of it.
    assert visit["learned_variance"].split()[-2:] == ["100.00", "%"], visit["learned_variance"]


def test_t5_shaw_and_transformer_xl_follow_the_offset_key(visit):
    for name in ("t5", "shaw", "xl"):
        assert visit[f"{name}_load"]["interactive"], visit[f"{name}_load"]["error"]
    assert visit["t5_at_3"] and visit["t5_at_9"]
    assert visit["shaw_at_1"] and visit["shaw_at_5"]
    assert visit["shaw_vector"].replace(" ", "") == "a2"  # a<sub>2</sub>
    assert visit["xl_at_2"] and visit["xl_at_3"]
