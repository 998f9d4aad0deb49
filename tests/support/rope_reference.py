"""RoPE inv_freq arrays written out from the published formulas (per pair, in math), for the
tests of the RoPE check and of its view: never built with the functions under test."""

from __future__ import annotations

import math

D, BASE, L = 128, 10000.0, 4096


def theta(i: int, d: int = D, base: float = BASE) -> float:
    return 1.0 / base ** (2 * i / d)


def plain(d: int = D, base: float = BASE) -> list[float]:
    return [theta(i, d, base) for i in range(d // 2)]


def yarn(
    s=32.0, truncate=True, clamp=D - 1, context=L, beta_fast=32.0, beta_slow=1.0
) -> list[float]:
    """The YaRN authors' inv_freq (jquesnelle/yarn), the high bound clamped at `clamp`."""

    def dim(rotations):
        return D * math.log(context / (rotations * 2 * math.pi)) / (2 * math.log(BASE))

    low, high = dim(beta_fast), dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, clamp)
    out = []
    for i in range(D // 2):
        ramp = min(max((i - low) / (high - low), 0), 1)
        out.append(theta(i) / s * ramp + theta(i) * (1 - ramp))
    return out


def llama3(in_wavelength: bool, d=128, base=500000.0, s=8.0, context=8192, low=1.0, high=4.0):
    """Meta's apply_scaling, or the same smoothed linearly in wavelength (the bug)."""
    out = []
    for i in range(d // 2):
        frequency = theta(i, d, base)
        wavelength = 2 * math.pi / frequency
        if wavelength < context / high:
            out.append(frequency)
        elif wavelength > context / low:
            out.append(frequency / s)
        else:
            smooth = (context / wavelength - low) / (high - low)
            if in_wavelength:
                out.append(2 * math.pi / ((1 - smooth) * wavelength * s + smooth * wavelength))
            else:
                out.append((1 - smooth) * frequency / s + smooth * frequency)
    return out


def ntk(s: float, d: int = D, base: float = BASE) -> list[float]:
    return plain(d, base * s ** (d / (d - 2)))
