"""Writing a generated module, or checking that it is up to date: the tail every table script
shares (transformers_tables, llamacpp_tables, converter_tables)."""

from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(out: Path, text: str, script: str, check: bool) -> int:
    """With check: 0 when `out` holds `text`, else 1 and how to regenerate it. Else write it."""
    if check:
        current = out.read_text(encoding="utf-8") if out.is_file() else ""
        if current != text:
            print(f"{out} is stale: run python -m scripts.{script}", file=sys.stderr)
            return 1
        print(f"{out} is up to date")
        return 0
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out} ({len(text):,} characters)")
    return 0
