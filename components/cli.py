"""The checks in a terminal or a CI job: `pe-explorer model SOURCE…` (what each layer of a model
does with positions, and the findings), `pe-explorer check MATRIX` (a positional-encoding matrix
against the paper's) and `pe-explorer ropecheck INV_FREQ --model SOURCE` (an inv_freq array
against a model's config).

Every source is reported, each in turn; the exit status is the worst of them: 0 clean; 1 a
verdict (a finding at or above --fail-on, a failed check, an --engine the model does not follow);
2 a source that cannot be read (one sentence on stderr, never a traceback). Output cut short by
its reader (`| head`) ends the run quietly, with 141 as a Unix tool killed by SIGPIPE. --json
prints one versioned envelope, always the same shape (docs/command.md). Starts without Panel,
Bokeh or Plotly: NumPy and the readers only.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import re
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

WIDTH = 100
SEVERITY = {"note": 0, "warning": 1}
FAIL_ON = ("note", "warning", "never")
CLEAN, VERDICT, UNREADABLE, BROKEN_PIPE = 0, 1, 2, 141  # 141 = 128 + SIGPIPE, as a Unix tool
# The --json envelopes: the schema names its version (docs/command.md says what changed).
SCHEMAS = {"model": "pe-explorer/model/2", "check": "pe-explorer/check/1",
           "ropecheck": "pe-explorer/ropecheck/1"}  # fmt: skip
# Standard input is read up to this many bytes (a config.json is a few KiB; the reader's cap).
MAX_STDIN = 4 << 20
SOURCES_HELP = """\
SOURCE is read as the first of these that fits:
  -                     a config.json on standard input
  hf://owner/name[@revision][/path]
                        a file on the Hugging Face Hub (its config.json when no path)
  a preset name         e.g. llama-3.1-8b (a published config this package holds)
  owner/name[@revision] the Hub's config.json, when all of: exactly two parts; no file or
                        folder of that name here, nor a folder named owner; the name has no
                        file extension (a dot then a letter: .json, .jsn, .gguf, but not the
                        .6B of Qwen3-0.6B)
  anything else         a local file, never sent to the Hub: models/llama/config.json or
                        llama/config.jsn that does not exist is "no such file"
A glob ('*.json') is expanded here. $HF_TOKEN goes to $HF_ENDPOINT's own host only."""
EXIT_HELP = """\
exit status, the worst over every source: 0 clean; 1 a verdict (a finding at --fail-on, an
--engine the model does not follow, a check that fails); 2 a source that cannot be read;
141 when the output's reader went away (| head)."""


class Unreadable(Exception):
    """A source the command cannot read: one plain sentence, exit status 2."""


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status = args.run(args)
        sys.stdout.flush()  # a broken pipe shows here, not in the interpreter's last flush
        return status
    except BrokenPipeError:
        return reader_left()
    except KeyboardInterrupt:
        return 130


def reader_left() -> int:
    """The output's reader went away (`| head`): stop quietly, as a Unix tool does."""
    with contextlib.suppress(OSError, ValueError):  # what is still buffered goes nowhere,
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # not to a second error
    return BROKEN_PIPE


def package_version() -> str:
    """The installed package's version, else the project's (pyproject.toml beside the code)."""
    from importlib import metadata

    try:
        return metadata.version("pe-explorer")
    except metadata.PackageNotFoundError:
        pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
        found = pyproject.is_file() and re.search(
            r'^version = "([^"]+)"', pyproject.read_text(encoding="utf-8"), re.M
        )
        return found[1] if found else "unknown"


class VersionAction(argparse.Action):
    """--version, looked up only when asked: importlib.metadata adds 60 ms to every start."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"pe-explorer {package_version()}")
        parser.exit()


RAW = argparse.RawDescriptionHelpFormatter  # the help's own line breaks, kept


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pe-explorer", description="Check a model's positions, or a positional encoding.",
        epilog=EXIT_HELP, formatter_class=RAW,
    )  # fmt: skip
    parser.add_argument("--version", action=VersionAction)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    add_model_command(commands)
    check = commands.add_parser(
        "check",
        help="a PE matrix (.npy or .csv) against the paper's",
        epilog=EXIT_HELP,
        formatter_class=RAW,
    )
    check.add_argument("matrix", metavar="MATRIX")
    check.add_argument("--base", type=float, default=10000.0)
    check.add_argument(
        "--json", action="store_true", help=f"print the result as JSON ({SCHEMAS['check']})"
    )
    check.set_defaults(run=run_check)
    rope = commands.add_parser(
        "ropecheck",
        help="an inv_freq array against a model's config",
        epilog=EXIT_HELP,
        formatter_class=RAW,
    )
    rope.add_argument("inv_freq", metavar="INV_FREQ", help=".npy or .csv of inv_freq")
    rope.add_argument(
        "--model",
        required=True,
        metavar="SOURCE",
        help="the model's config (a SOURCE as `pe-explorer model` reads it)",
    )
    rope.add_argument(
        "--json", action="store_true", help=f"print the result as JSON ({SCHEMAS['ropecheck']})"
    )
    rope.set_defaults(run=run_ropecheck)
    return parser  # fmt: skip


def add_model_command(commands) -> None:
    model = commands.add_parser(
        "model",
        help="what each layer of a model does with positions, and what looks wrong",
        description="Read config.json, .gguf and .safetensors files (by their headers only).",
        epilog=f"{SOURCES_HELP}\n\n{EXIT_HELP}",
        formatter_class=RAW,
    )
    model.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a file, a glob, a preset name, a Hub id, or - for a config.json on stdin (below)",
    )
    model.add_argument(
        "--json",
        action="store_true",
        help=f"print one JSON envelope ({SCHEMAS['model']}) for every source",
    )
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
        help="a verdict (exit 1) unless the layers follow this engine (both: a "
        "config.json and a GGUF given together)",
    )
    model.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="warning",
        help="exit 1 when a finding is at least this severe (default: warning)",
    )
    model.add_argument(
        "--precision",
        choices=("bf16", "fp16"),
        help="also note, per layer type, the worst angle and score error of RoPE computed in this "
        "format, at the model's maximum context",
    )
    model.set_defaults(run=run_model)


def expand(sources: list[str]) -> list[str]:
    """Globs expanded (sorted); a pattern that matches nothing stays, to be refused by name."""
    out: list[str] = []
    for source in sources:
        matches = sorted(glob.glob(source)) if glob.has_magic(source) else []
        out.extend(matches or [source])
    return out


# A file extension: a dot, a letter, then letters or digits (.json, .jsn, .gguf), never a version
# (Qwen3-0.6B, Llama-3.1-8B, v0.1).
EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]*$")


def source_kind(source: str) -> str:
    """ "stdin", "hub", "preset" or "file", by the rule of SOURCES_HELP."""
    from .model.presets import PRESETS

    if source == "-":
        return "stdin"
    if source.startswith("hf://"):
        return "hub"
    if source in PRESETS:
        return "preset"
    return "hub" if is_bare_hub_id(source) else "file"


def is_bare_hub_id(source: str) -> bool:
    """owner/name[@revision]: two parts, neither a path here nor a name with a file extension."""
    from .hub import BARE_HUB_ID

    match = BARE_HUB_ID.fullmatch(source)
    if not match or ".." in source or "--" in source or EXTENSION.search(match[2]):
        return False
    return not Path(source).exists() and not Path(match[1]).is_dir()


def load_source(source: str):
    """A Loaded of the model reader, or Unreadable."""
    from .hub import HubError, load_hub
    from .model.sources import load

    kind = source_kind(source)
    try:
        if kind == "stdin":
            return load(read_stdin())
        if kind == "hub":
            return load_hub(source)
        return load(source if kind == "preset" else local_file(source))
    except HubError as error:
        raise Unreadable(str(error)) from None
    except PermissionError:
        raise Unreadable(f"{source} cannot be read (permission denied)") from None
    except (OSError, ValueError) as error:  # the readers' ModelError and ModelFileError
        raise Unreadable(f"{source}: {_sentence(error)}") from None


def local_file(source: str) -> Path:
    """The local file source names, or Unreadable: a path never becomes a Hub request."""
    from .hub import HUB_SOURCE

    path = Path(source)
    if path.is_dir():
        raise Unreadable(f"{source} is a folder; give the config.json or model file in it")
    if not path.exists():
        hint = f"; for the Hub, write hf://{source}" if HUB_SOURCE.fullmatch(source) else ""
        raise Unreadable(f"there is no file {source}{hint}")
    with path.open("rb"):  # unreadable permissions say so here, in one sentence
        pass
    return path


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


def say_unreadable(sentence: str) -> None:
    sys.stdout.flush()  # in order with what was printed before it
    print(f"pe-explorer: {sentence}", file=sys.stderr, flush=True)


def envelope(command: str, status: int, key: str, items: list, unreadable: list) -> str:
    """The one shape --json prints: schema, worst status, the results, what could not be read."""
    document = {"schema": SCHEMAS[command], "status": status, key: items,
                "unreadable": unreadable}  # fmt: skip
    return json.dumps(document, indent=1, default=_plain)


def _plain(value):
    """NumPy's arrays and scalars, and the checks' small dataclasses, as JSON's own types."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "__dataclass_fields__"):
        return vars(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


@dataclass
class Outcome:
    """What one model (one source, or the sources read --together) gave: the model and its
    verdicts, or the sentence saying why a source cannot be read."""

    inputs: list[str]
    model: object = None
    verdicts: list[str] = field(default_factory=list)
    unreadable: str = ""

    def status(self, fail_on: str) -> int:
        if self.unreadable:
            return UNREADABLE
        threshold = SEVERITY.get(fail_on)
        failing = threshold is not None and any(
            SEVERITY.get(f.severity, 1) >= threshold for f in self.model.findings
        )
        return VERDICT if failing or self.verdicts else CLEAN

    def to_json(self, fail_on: str, precision: str | None = None) -> dict:
        if self.unreadable:
            return {"input": self.inputs[0], "sentence": self.unreadable}
        document = {"input": self.inputs, "status": self.status(fail_on),
                    "verdicts": self.verdicts, "positions": self.model.to_json()}  # fmt: skip
        if precision:
            document["precision"] = precision_json(self.model, precision)
        return document


def read_group(sources: list[str], engine: str | None) -> list[Outcome]:
    """One Outcome for the model the sources make, or one per source that cannot be read."""
    from .model.reader import read_model

    loaded, refused = [], []
    for source in sources:
        try:
            loaded.append(load_source(source))
        except Unreadable as error:
            refused.append(Outcome([source], unreadable=str(error)))
    if refused:
        return refused
    try:
        model = read_model(*loaded)
    except ValueError as error:
        return [Outcome(sources, unreadable=f"{', '.join(sources)}: {_sentence(error)}")]
    return [Outcome(sources, model, engine_verdicts(engine, model))]


def engine_of(model) -> str:
    """ "transformers", "llama.cpp", or "" for a model read from the generic keys."""
    from .model.types import Engine

    return "" if model.read_by is Engine.GENERIC else model.read_by.value


def engine_verdicts(engine: str | None, model) -> list[str]:
    """The sentence saying the model does not follow --engine, if it does not."""
    codes = {f.code for f in model.findings}
    if engine == "both" and not codes & {"engines-differ", "engines-agree"}:
        return [
            f"{model.name} is read by one engine only; --engine both needs a config.json and a "
            "GGUF of the model, given together (--together)"
        ]
    if engine in ("transformers", "llama.cpp") and engine_of(model) != engine:
        follows = engine_of(model) or "no known engine"
        return [f"{model.name}'s layers follow {follows}, not {engine} (--engine {engine})"]
    return []


def run_model(args) -> int:
    sources = expand(args.sources)
    groups = [sources] if args.together else [[source] for source in sources]
    outcomes: list[Outcome] = []
    for group in groups:
        for outcome in read_group(group, args.engine):
            if outcome.unreadable:
                say_unreadable(outcome.unreadable)
            elif not args.json:
                first = all(o.unreadable for o in outcomes)
                text = outcome_text(outcome, args.layers)
                if args.precision:
                    text += "\n" + precision_text(outcome.model, args.precision)
                print(("" if first else "\n") + text, flush=True)
            outcomes.append(outcome)
    status = max(outcome.status(args.fail_on) for outcome in outcomes)
    if args.json:
        models = [o.to_json(args.fail_on, args.precision) for o in outcomes if not o.unreadable]
        refused = [o.to_json(args.fail_on) for o in outcomes if o.unreadable]
        print(envelope("model", status, "models", models, refused))
    return status


def outcome_text(outcome: Outcome, every_layer: bool) -> str:
    """A model read, as text: its table and findings, then any --engine verdict."""
    text = model_text(outcome.model, every_layer, ", ".join(outcome.inputs))
    for sentence in outcome.verdicts:
        text += "\n" + textwrap.fill(sentence, WIDTH, initial_indent="verdict: ",
                                     subsequent_indent="  ")  # fmt: skip
    return text


PLACES = {"product": "position × inv_freq", "positions": "positions held",
          "cache": "cos and sin cached"}  # fmt: skip


def precision_context(model) -> int:
    """Where --precision puts the query: the model's maximum context (else its original, 4k)."""
    return model.max_context or model.original_context or 4096


def precision_findings(model, fmt: str):
    """(layer, its indices, place, Simulation) for each rotating layer type and each place RoPE
    computed in fmt can lose its angles, at the model's maximum context (mistakes.precision)."""
    from .mistakes.simulate import simulate

    top = precision_context(model)
    for layer, indices in model.layer_types():
        if not layer.rotates or layer.inv_freq is None:
            continue
        for place in PLACES:
            found = simulate("low_precision", model, at=top, layer=layer.index, precision=fmt,
                             place=place)  # fmt: skip
            yield layer, indices, place, found


def precision_text(model, fmt: str) -> str:
    """A note per rotating layer type: the worst angle error (radians) and score error (unit q
    and k) of RoPE computed in fmt, at the model's maximum context, for each place it can be
    lost (mistakes.precision)."""
    lines = [f"precision: RoPE in {fmt} at {precision_context(model):,} against float64, worst "
             "angle error (rad) / score error"]  # fmt: skip
    cells: dict[int, tuple] = {}
    for layer, indices, place, found in precision_findings(model, fmt):
        score = "overflow" if found.worst_score != found.worst_score else f"{found.worst_score:.3g}"
        text = f"{PLACES[place]} {found.worst_angle:.3g} / {score}"
        cells.setdefault(layer.index, (layer, indices, []))[2].append(text)
    for layer, indices, texts in cells.values():
        head = f"  note    {len(indices)} layers {layer.label}: "
        lines += textwrap.wrap("; ".join(texts), WIDTH, initial_indent=head,
                               subsequent_indent=" " * 4)  # fmt: skip
    return "\n".join(lines)


def precision_json(model, fmt: str) -> list[dict]:
    """--precision under --json: one object per rotating layer type and place, with the numbers
    precision_text prints (null where the format overflows) and where each worst error is."""
    rows = []
    for layer, indices, place, found in precision_findings(model, fmt):
        position, pair = worst_angle_where(found)
        score, distance = _worst_and_where(found.score_error, found.distances)
        rows.append({
            "layers": indices, "label": layer.label, "format": fmt, "place": place,
            "context": found.settings["at"], "worst_angle": _finite(found.worst_angle),
            "worst_angle_position": position, "worst_angle_pair": pair,
            "worst_score": score, "worst_score_distance": distance,
        })  # fmt: skip
    return rows


def worst_angle_where(found) -> tuple[int | None, int | None]:
    """(position, pair) of a simulation's worst finite angle error (Simulation.worst_angle), or
    (None, None) when every angle overflowed."""
    import numpy as np

    error = np.abs(found.angle_error)
    error = np.where(np.isfinite(error), error, -1.0)
    row, pair = np.unravel_index(int(np.argmax(error)), error.shape)
    if error[row, pair] < 0:
        return None, None
    return int(found.positions[row]), int(pair)


def _worst_and_where(error, x) -> tuple[float | None, int | None]:
    """The largest finite |error| and the x it is at, or (None, None): JSON has no NaN."""
    from .mistakes.scores import worst_at

    worst, where = worst_at(error, x)
    return (None, None) if where is None else (worst, int(where))


def _finite(value: float) -> float | None:
    return value if value == value else None


COLUMNS = (("", 10), ("method", 8), ("θ", 9), ("rotary", 9), ("pairs", 11),
           ("scaling", 26), ("window", 9), ("attn", 8))  # fmt: skip


def model_text(model, every_layer: bool = False, inputs: str = "") -> str:
    """The model (after the sources it was read from, when they are not its name) as a table of
    layer groups (each with its layers' indices) or of every layer, then its findings with their
    evidence, in 100 columns."""
    from .model.report import engine_line, ranges

    title = f"{model.name} ({model.architecture or 'unknown architecture'})"
    lines = [f"{inputs}: {title}" if inputs and inputs != model.name else title, engine_line(model)]
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


def refuse(command: str, args, source: str, error: Unreadable) -> int:
    """A check's source that cannot be read: its sentence, and the envelope under --json."""
    if args.json:
        unreadable = [{"input": source, "sentence": str(error)}]
        print(envelope(command, UNREADABLE, "checks", [], unreadable))
    say_unreadable(str(error))
    return UNREADABLE


def run_check(args) -> int:
    from .diagnosis import diagnose, load_matrix

    try:
        matrix = read_array(args.matrix, load_matrix)
        result = diagnose(matrix, base=args.base)
    except ValueError as error:  # the matrix's shape or values (MatrixError)
        return refuse("check", args, args.matrix, Unreadable(f"{args.matrix}: {_sentence(error)}"))
    except Unreadable as error:
        return refuse("check", args, args.matrix, error)
    status = CLEAN if result.matches else VERDICT
    if args.json:
        fields = {k: v for k, v in vars(result).items() if k not in ("theirs", "reference")}
        mistake = result.mistake.key if result.mistake else None
        check = {"input": args.matrix, "status": status, "mistake": mistake, **fields}
        print(envelope("check", status, "checks", [check], []))
    else:
        print(str(result))
    return status


def run_ropecheck(args) -> int:
    from .rope_diagnosis import load_inv_freq

    try:
        inv_freq = read_array(args.inv_freq, load_inv_freq)
    except Unreadable as error:
        return refuse("ropecheck", args, args.inv_freq, error)
    try:
        result = rope_result(inv_freq, args)
    except Unreadable as error:
        return refuse("ropecheck", args, args.model, error)
    status = CLEAN if result.ok else VERDICT
    if args.json:
        check = {"input": args.inv_freq, "model": args.model, "status": status, **vars(result)}
        print(envelope("ropecheck", status, "checks", [check], []))
    else:
        print(result.text)
    return status


def rope_result(inv_freq, args):
    """diagnose_rope of inv_freq against the first rotating layer of --model, or Unreadable."""
    from .model.reader import read_model, scaling_settings
    from .rope_diagnosis import diagnose_rope

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
        return diagnose_rope(inv_freq, method, d_head, base, factor, original, **settings)
    except ValueError as error:
        raise Unreadable(f"{args.inv_freq}: {_sentence(error)}") from None


if __name__ == "__main__":
    sys.exit(main())
