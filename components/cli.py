"""The checks in a terminal or a CI job: `pe-explorer model SOURCE…` (what each layer of a model
does with positions, and the findings), `pe-explorer check MATRIX` (a positional-encoding matrix
against the paper's) and `pe-explorer ropecheck INV_FREQ --model SOURCE` (an inv_freq array
against a model's config).

Exit status: 0 clean; 1 a finding at or above --fail-on; 2 a source cannot be read (one sentence
on stderr, never a traceback). Starts without Panel, Bokeh or Plotly: NumPy and the readers only.
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
import textwrap
from pathlib import Path

WIDTH = 100
SEVERITY = {"note": 0, "warning": 1}
FAIL_ON = ("note", "warning", "never")
# Standard input is read up to this many bytes (a config.json is a few KiB; the reader's cap).
MAX_STDIN = 4 << 20


class Unreadable(Exception):
    """A source the command cannot read: one plain sentence, exit status 2."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except Unreadable as error:
        print(f"pe-explorer: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pe-explorer", description="Check a model's positions, or a positional encoding."
    )
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    model = commands.add_parser(
        "model",
        help="what each layer of a model does with positions, and what looks wrong",
        description="Read config.json, .gguf and .safetensors files (by their headers only).",
    )
    model.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a file, a glob, a preset name, or - for a config.json on stdin",
    )
    model.add_argument("--json", action="store_true", help="print the positions as JSON")
    model.add_argument("--layers", action="store_true", help="list every layer")
    model.add_argument(
        "--together",
        action="store_true",
        help="read the sources as one model (a config.json beside its GGUF: the "
        "two engines side by side)",
    )
    model.add_argument(
        "--engine",
        choices=("transformers", "llama.cpp", "both"),
        help="require that the layers follow this engine (both: a config.json "
        "and a GGUF given together)",
    )
    model.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="warning",
        help="exit 1 when a finding is at least this severe (default: warning)",
    )
    model.set_defaults(run=run_model)
    check = commands.add_parser("check", help="a PE matrix (.npy or .csv) against the paper's")
    check.add_argument("matrix", metavar="MATRIX")
    check.add_argument("--base", type=float, default=10000.0)
    check.set_defaults(run=run_check)
    rope = commands.add_parser("ropecheck", help="an inv_freq array against a model's config")
    rope.add_argument("inv_freq", metavar="INV_FREQ", help=".npy or .csv of inv_freq")
    rope.add_argument("--model", required=True, metavar="SOURCE", help="the model's config")
    rope.set_defaults(run=run_ropecheck)
    return parser  # fmt: skip


def expand(sources: list[str]) -> list[str]:
    """Globs expanded (sorted); a pattern that matches nothing stays, to be refused by name."""
    out: list[str] = []
    for source in sources:
        matches = sorted(glob.glob(source)) if glob.has_magic(source) else []
        out.extend(matches or [source])
    return out


def load_source(source: str):
    """A Loaded of the model reader, or Unreadable."""
    from .hub import HubError, is_hub_source, load_hub
    from .model.presets import PRESETS
    from .model.sources import load

    try:
        if source == "-":
            return load(read_stdin())
        if is_hub_source(source):
            return load_hub(source)
        if source in PRESETS:
            return load(source)
        path = Path(source)
        if path.is_dir():
            raise Unreadable(f"{source} is a folder; give the config.json or model file in it")
        if not path.exists():
            raise Unreadable(f"there is no file {source}")
        with path.open("rb"):  # unreadable permissions say so here, in one sentence
            pass
        return load(path)
    except Unreadable:
        raise
    except HubError as error:
        raise Unreadable(str(error)) from None
    except PermissionError:
        raise Unreadable(f"{source} cannot be read (permission denied)") from None
    except (OSError, ValueError) as error:  # the readers' ModelError and ModelFileError
        raise Unreadable(f"{source}: {_sentence(error)}") from None


def read_stdin() -> str:
    data = sys.stdin.buffer.read(MAX_STDIN + 1)
    if len(data) > MAX_STDIN:
        raise Unreadable("standard input holds more than 4 MiB; a config.json is far smaller")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unreadable("standard input is not UTF-8 text, so not a config.json") from None


def _sentence(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text[:300]


def read_models(args) -> list:
    from .model.reader import read_model

    sources = expand(args.sources)
    loaded = [(source, load_source(source)) for source in sources]
    groups = [loaded] if args.together else [[item] for item in loaded]
    models = []
    for group in groups:
        try:
            model = read_model(*(item for _, item in group))
        except ValueError as error:
            raise Unreadable(f"{', '.join(s for s, _ in group)}: {_sentence(error)}") from None
        models.append(model)
    return models


def engine_of(model) -> str:
    """ "transformers", "llama.cpp", or "" for a model read from the generic keys."""
    from .model.types import Engine

    return "" if model.read_by is Engine.GENERIC else model.read_by.value


def check_engine(args, models: list) -> None:
    if not args.engine:
        return
    for model in models:
        codes = {f.code for f in model.findings}
        if args.engine == "both" and not codes & {"engines-differ", "engines-agree"}:
            raise Unreadable(
                f"{model.name}: --engine both needs a config.json and a GGUF of the model, "
                "given together (--together)"
            )
        if args.engine in ("transformers", "llama.cpp") and engine_of(model) != args.engine:
            raise Unreadable(
                f"{model.name} is read as {model.engine or 'no known engine'}, not {args.engine}"
            )


def run_model(args) -> int:
    models = read_models(args)
    check_engine(args, models)
    if args.json:
        documents = [model.to_json() for model in models]
        print(json.dumps(documents[0] if len(documents) == 1 else documents, indent=1))
    else:
        print("\n\n".join(model_text(model, args.layers) for model in models))
    threshold = SEVERITY.get(args.fail_on)
    failing = threshold is not None and any(
        SEVERITY.get(f.severity, 1) >= threshold for model in models for f in model.findings
    )
    return 1 if failing else 0


COLUMNS = (("", 10), ("method", 8), ("θ", 9), ("rotary", 9), ("pairs", 11),
           ("scaling", 26), ("window", 9), ("attn", 8))  # fmt: skip


def model_text(model, every_layer: bool = False) -> str:
    """The model as a table of layer groups (each with its layers' indices) or of every layer,
    then its findings with their evidence, in 100 columns."""
    from .model.report import engine_line, ranges

    lines = [f"{model.name} ({model.architecture or 'unknown architecture'})", engine_line(model)]
    if model.original_context:
        lines.append(f"context: trained on {model.original_context:,}, up to {model.max_context:,}")
    lines.append(_row([name for name, _ in COLUMNS]))
    groups = (
        [(layer, [layer.index]) for layer in model.layers] if every_layer else model.layer_types()
    )
    for layer, indices in groups:
        label = f"layer {indices[0]}" if every_layer else f"{len(indices)} layers"
        lines.append(_row([label, *_cells(layer)]))
        if not every_layer:
            lines += textwrap.wrap(ranges(indices), WIDTH, initial_indent="  ",
                                   subsequent_indent="  ")  # fmt: skip
    lines.append(f"findings: {len(model.findings) or 'none'}")
    for finding in model.findings:
        head = f"  {finding.severity:7} {finding.code}: "
        lines += textwrap.wrap(finding.sentence, WIDTH, initial_indent=head,
                               subsequent_indent=" " * 4)  # fmt: skip
        lines += textwrap.wrap(finding.evidence, WIDTH, initial_indent="    evidence: ",
                               subsequent_indent=" " * 6)  # fmt: skip
    return "\n".join(lines)


def _cells(layer) -> list[str]:
    from .model.report import scaling_text

    if layer.method != "rope":
        return [layer.method, "", "", "", "", _window(layer), ""]
    return [
        "rope",
        f"{layer.theta:g}",
        f"{layer.rotary_dim}/{layer.head_dim}",
        layer.pairing or "",
        scaling_text(layer.scaling),
        _window(layer),
        f"{layer.attention_factor:.4g}",
    ]


def _window(layer) -> str:
    return f"{layer.window:,}" if layer.window else "-"


def _row(cells: list[str]) -> str:
    parts = []
    for (_, width), cell in zip(COLUMNS, cells, strict=True):
        cell = cell if len(cell) <= width else cell[: width - 1] + "…"
        parts.append(cell.ljust(width))
    return " ".join(parts).rstrip()


def read_array(path: str, loader) -> object:
    file = Path(path)
    if not file.is_file():
        raise Unreadable(f"there is no file {path}")
    if file.stat().st_size > 64 << 20:
        raise Unreadable(f"{path} is larger than 64 MiB; an array to check is far smaller")
    try:
        return loader(file.read_bytes(), file.name)
    except PermissionError:
        raise Unreadable(f"{path} cannot be read (permission denied)") from None
    except (OSError, ValueError) as error:
        raise Unreadable(f"{path}: {_sentence(error)}") from None


def run_check(args) -> int:
    from .diagnosis import diagnose, load_matrix

    matrix = read_array(args.matrix, load_matrix)
    try:
        result = diagnose(matrix, base=args.base)
    except ValueError as error:
        raise Unreadable(f"{args.matrix}: {_sentence(error)}") from None
    print(str(result))
    return 0 if result.matches else 1


def run_ropecheck(args) -> int:
    from .model.reader import read_model, scaling_settings
    from .rope_diagnosis import diagnose_rope, load_inv_freq

    inv_freq = read_array(args.inv_freq, load_inv_freq)
    try:
        model = read_model(load_source(args.model))
    except ValueError as error:
        raise Unreadable(f"{args.model}: {_sentence(error)}") from None
    rope = [layer for layer in model.layers if layer.method == "rope"]
    if not rope:
        raise Unreadable(f"{args.model}: no layer of this model rotates")
    settings, why = scaling_settings(rope[0], model)
    if not settings:
        raise Unreadable(f"{args.model}: the checker cannot express its scaling ({why})")
    settings = dict(settings)
    method, d_head = settings.pop("scaling"), settings.pop("d_model")
    base, factor = settings.pop("base"), settings.pop("factor")
    original = settings.pop("original_context")
    try:
        result = diagnose_rope(inv_freq, method, d_head, base, factor, original, **settings)
    except ValueError as error:
        raise Unreadable(f"{args.inv_freq}: {_sentence(error)}") from None
    print(result.text)
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
