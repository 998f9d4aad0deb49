"""Generate components/model/converter_data.py by running llama.cpp's own converter, at a pinned
commit, on every config.json preset: the GGUF architecture and the position keys its
`set_gguf_parameters()` writes, the RoPE tensors its `generate_extra_tensors()` computes from the
config (Llama 3's rope_freqs, Phi-3's long and short factors), and the converter class with its
`file:line`. No weights are read: each preset's config.json is put alone in a directory, and the
class is built on it as `convert_hf_to_gguf.py` builds it (which reads the config through
transformers' `AutoConfig`, so the installed transformers is recorded too).

    python -m scripts.converter_tables LLAMA_CPP           # write the module
    python -m scripts.converter_tables LLAMA_CPP --check   # exit 1 when the module is stale

LLAMA_CPP is a llama.cpp git directory (bare, e.g. a mirror's `repo`) or a checkout; the
converter (`convert_hf_to_gguf.py`, `conversion/`, `gguf-py/`) is extracted at its HEAD (or
--commit) into a temporary directory and imported with that `gguf-py` first on sys.path, so the
converter runs with llama.cpp's own `gguf` package, not the one installed in the venv.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import io
import json
import logging
import pprint
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from scripts.generated import write_or_check

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "components" / "model" / "converter_data.py"
MIRROR = "unslothai/llama.cpp"
CONVERTER = ("convert_hf_to_gguf.py", "conversion", "gguf-py/gguf")
# The GGUF keys about positions (after "{arch}."): the rest (norms' epsilon, experts, vocabulary)
# says nothing about them.
POSITION_KEYS = ("context_length", "block_count", "embedding_length", "attention.", "rope.")
NOT_POSITIONS = ("attention.layer_norm_epsilon", "attention.layer_norm_rms_epsilon")
# The preset formats the converter reads: a Hugging Face config.json (a fragment is one once its
# base preset is merged under it).
CONFIG_FORMATS = ("config.json", "config.json fragment")


class Stop(Exception):
    """The converter could not be extracted or imported."""


def extract(git_dir: str, commit: str | None, into: Path) -> str:
    """The converter's files at `commit` written under `into`; the full commit id."""
    rev = commit or "HEAD"
    try:
        full = subprocess.run(
            ["git", "-C", git_dir, "rev-parse", f"{rev}^{{commit}}"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
        archive = subprocess.run(
            ["git", "-C", git_dir, "archive", "--format=tar", full, *CONVERTER],
            check=True, capture_output=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.CalledProcessError) as e:
        raise Stop(f"cannot read the converter from {git_dir}: {e}") from None
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return full


def import_converter(root: Path):
    """llama.cpp's `conversion` package and its own `gguf`, imported from `root`."""
    for name in [n for n in sys.modules if n == "gguf" or n.startswith(("gguf.", "conversion"))]:
        del sys.modules[name]
    sys.path[:0] = [str(root / "gguf-py"), str(root)]
    logging.disable(logging.WARNING)  # the converter logs every key it writes
    try:
        gguf = importlib.import_module("gguf")
        conversion = importlib.import_module("conversion")
    except Exception as e:
        raise Stop(f"cannot import the converter: {type(e).__name__}: {e}") from None
    if not Path(gguf.__file__).resolve().is_relative_to(root.resolve()):
        raise Stop(f"gguf was imported from {gguf.__file__}, not from the converter's gguf-py")
    return conversion, gguf


def published(name: str) -> dict:
    """A preset's config.json as published (a fragment merged over its base preset)."""
    from components.model.sources import preset_config

    return preset_config(name)


def where(obj, root: Path) -> str:
    """`file:line` of a class or function, relative to the extracted converter."""
    path = Path(inspect.getsourcefile(obj)).resolve().relative_to(root.resolve())
    lines, start = inspect.getsourcelines(obj)
    offset = next(
        (i for i, line in enumerate(lines) if line.lstrip().startswith(("class ", "def "))), 0
    )
    return f"{path.as_posix()}:{start + offset}"


def plain(value, kind, gguf):
    """A GGUF value as llama.cpp reads it back from a file: float32 rounded, arrays as lists."""
    import numpy as np

    if isinstance(value, (list, tuple)):
        return [plain(v, None, gguf) for v in value]
    if kind == gguf.GGUFValueType.FLOAT32 or isinstance(value, float):
        return float(np.float32(value))
    if isinstance(value, (bool, int, str)):
        return value
    return float(value)


def positions(kv: dict, arch: str) -> dict:
    """The keys about positions, and general.architecture."""
    out = {"general.architecture": arch}
    prefix = arch + "."
    for key, value in kv.items():
        short = key.removeprefix(prefix)
        if (
            key.startswith(prefix)
            and short.startswith(POSITION_KEYS)
            and short not in NOT_POSITIONS
        ):
            out[key] = value
    return out


def tensors(model, gguf) -> dict:
    """The RoPE tensors the converter computes from the config alone, as float32 lists."""
    import numpy as np

    out = {}
    for name, tensor in model.generate_extra_tensors():
        if not name.startswith(("rope_freqs", "rope_factors")):
            continue
        data = tensor.to_eager(tensor) if hasattr(tensor, "to_eager") else tensor
        out[name] = [float(v) for v in np.asarray(data.float().numpy(), dtype=np.float32)]
    return out


def convert(name: str, conversion, gguf, root: Path) -> dict:
    """What the converter writes for one preset's config.json, or why it cannot."""
    from components.model.presets import PRESETS

    entry = PRESETS[name]
    if entry.get("format", "config.json") not in CONFIG_FORMATS:
        return {
            "reason": f"a {entry['format']}, not a config.json: the converter reads config.json"
        }
    config = published(name)
    arches = config.get("architectures") or []
    if not arches:
        return {"reason": "the config.json names no architecture"}
    try:
        cls = conversion.get_model_class(arches[0])
    except NotImplementedError:
        return {"reason": f"no converter class is registered for {arches[0]}"}
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "config.json").write_text(json.dumps(config), encoding="utf-8")
        try:
            model = cls(
                Path(folder), gguf.LlamaFileType.MOSTLY_F16, Path(folder, "out.gguf"), dry_run=True
            )
            # A class that delegates to another (Mistral3Model's impl) writes through its own.
            target = getattr(model, "impl", model)
            target.set_gguf_parameters()
            extra = tensors(target, gguf)
        except Exception as e:
            error = f"{type(e).__name__} {e}"[:120]
            return {"reason": f"{cls.__name__} raises {error} on the config.json alone"}
    written = {k: plain(v.value, v.type, gguf) for k, v in target.gguf_writer.kv_data[0].items()}
    arch = written["general.architecture"]
    method = type(target).set_gguf_parameters
    row = {
        "architecture": arch,
        "class": type(target).__qualname__,
        "source": where(type(target), root),
        "set_gguf_parameters": f"{where(method, root)} ({method.__qualname__})",
        "kv": positions(written, arch),
    }
    if type(target) is not cls:
        row["registered"] = f"{cls.__qualname__}, {where(cls, root)}"
    if extra:
        row["tensors"] = extra
    return row


def run(git_dir: str, commit: str | None) -> tuple[str, dict]:
    """The commit and each preset's row, from the converter at that commit."""
    from components.model.presets import PRESETS

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        full = extract(git_dir, commit, root)
        conversion, gguf = import_converter(root)
        return full, {name: convert(name, conversion, gguf, root) for name in PRESETS}


def render(commit: str, rows: dict, mirror: str) -> str:
    import transformers

    converted = {k: v for k, v in rows.items() if "reason" not in v}
    refused = {k: v["reason"] for k, v in rows.items() if "reason" in v}
    head = (
        '"""Generated by scripts/converter_tables.py by running llama.cpp\'s\n'
        "convert_hf_to_gguf.py on each config.json preset: do not edit.\n"
        f"Mirror {mirror}, commit {commit};\n"
        "every `source` is a file:line at that commit.\n"
        "Regenerate with python -m scripts.converter_tables LLAMA_CPP_GIT_DIR (--check: exit 1\n"
        "when stale). The GGUF keys are those about positions, with their values as llama.cpp\n"
        "reads them back (float32); `tensors` are the RoPE tensors computed from the config.\n"
        '"""\n\n# fmt: off\n\n'
    )
    parts = [head]
    values = {
        "COMMIT": ("The llama.cpp commit the converter was run at.", commit),
        "MIRROR": ("The GitHub repository the commit was read from.", mirror),
        "TRANSFORMERS": (
            "The transformers the converter read each config.json with (AutoConfig).",
            transformers.__version__,
        ),
        "GGUF": ("Preset -> what the converter writes: its GGUF architecture, class and keys.",
                 converted),
        "NOT_CONVERTED": ("Preset -> why the converter does not convert it.", refused),
    }  # fmt: skip
    for name, (comment, value) in values.items():
        text = pprint.pformat(value, width=99, compact=True, sort_dicts=True)
        parts.append(f"# {comment}\n{name} = {text}\n\n")
    return "".join(parts).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("llama_cpp", help="llama.cpp git directory or checkout")
    ap.add_argument("--check", action="store_true", help="exit 1 when the module is stale")
    ap.add_argument("--commit", help="commit to read (default HEAD)")
    ap.add_argument("--mirror", default=MIRROR, help="repository name recorded in the module")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    try:
        commit, rows = run(args.llama_cpp, args.commit)
    except Stop as e:
        print(f"converter_tables: {e}", file=sys.stderr)
        return 2
    text = render(commit, rows, args.mirror)
    return write_or_check(args.out, text, "converter_tables", args.check)


if __name__ == "__main__":
    sys.exit(main())
