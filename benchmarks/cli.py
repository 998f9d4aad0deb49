"""`pe-explorer model` in a terminal: how long a config.json takes to answer, side by side with
`python -c pass` (the interpreter's own start, the baseline of the ratio), and a sparse 50 GiB
GGUF read by its header only, with the process's peak memory. Runs alternate between the
commands, so that a busy machine slows both alike; percentiles over runs.

    python -m benchmarks.cli [--runs 20] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMAND = Path(sys.executable).with_name("pe-explorer")


def timed(command: list[str]) -> tuple[float, int]:
    """Seconds and the child's peak resident memory (KiB) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=False)
    seconds = time.perf_counter() - start
    return seconds, max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before)


def sparse_gguf(path: Path, size: int) -> None:
    import gguf

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_context_length(131072)
    writer.add_embedding_length(8192)
    writer.add_block_count(80)
    writer.add_head_count(64)
    writer.add_rope_freq_base(500000.0)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    with open(path, "r+b") as file:
        file.truncate(size)


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
    }


def measure(runs: int) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="pe-cli-bench-"))
    config = folder / "config.json"
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from pe_explorer.model.presets import PRESETS

    config.write_text(json.dumps(PRESETS["llama-3.1-8b"]["config"]), encoding="utf-8")
    big = folder / "big.gguf"
    sparse_gguf(big, 50 << 30)
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "pe-explorer model config.json": [str(COMMAND), "model", str(config)],
        "pe-explorer model 50 GiB sparse GGUF": [str(COMMAND), "model", str(big)],
    }
    seconds: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():  # one warm-up each: the OS's file cache
        subprocess.run(command, capture_output=True, check=False)
    peak = 0
    for _ in range(runs):
        for name, command in commands.items():
            elapsed, peak_kib = timed(command)
            seconds[name].append(elapsed)
            if "GGUF" in name:
                peak = max(peak, peak_kib)
    baseline = percentiles(seconds["python -c pass"])["p50"]
    return {
        "runs": runs,
        "seconds": {name: percentiles(values) for name, values in seconds.items()},
        "ratio_to_python_p50": {
            name: percentiles(values)["p50"] / baseline for name, values in seconds.items()
        },
        "peak_rss_mib_any_child": peak / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = measure(args.runs)
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
