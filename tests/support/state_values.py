"""Values other than the defaults of state parameters, shared by the tables of tests that change
each parameter once (tests/unit/test_views_follow.py, test_views_rope.py)."""

from __future__ import annotations

from pathlib import Path

PUBLISHED = Path(__file__).resolve().parents[1] / "fixtures" / "published_configs"


def mistake_values() -> dict:
    """A value other than the default of each of the mistakes view's own parameters (issue 59):
    each mistake's settings and the visitor's model (Gemma 3 4B's config.json, as published)."""
    from pe_explorer.model.reader import read_model
    from pe_explorer.model.sources import load
    from pe_explorer.state import VisitorModel

    text = (PUBLISHED / "gemma-3-4b-it.json").read_text("utf-8")
    return {
        "visitor_model": VisitorModel.of(read_model(load(text))),
        "window": 512,
        "sinks": 8,
        "padded_lengths": "5,2",
        "packed_lengths": "100,200",
        "alibi_heads": 8,
        "alibi_as_heads": 32,
        "theta_read": 1e6,
        "prefill": 1024,
    }
