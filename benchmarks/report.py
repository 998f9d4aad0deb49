"""Markdown tables of a benchmark run, with each budget marked PASS or FAIL."""

from __future__ import annotations

MIB = 2**20

# Issue 5, "Fast at every size".
SERVED_BUDGETS = {"S": {"p50_ms": 50, "p95_ms": 100}, "L": {"p50_ms": 150}}
PYODIDE_LATENCY_BUDGETS = {"S": {"p50_ms": 150}}
TTI_RATIO_BUDGET = 1.15
BYTES_RATIO_BUDGET = 1.05


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def number(value, digits: int = 0, unit: str = "") -> str:
    if value is None:
        return "–"
    return f"{value:,.{digits}f}{unit}"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def latency_budget_cells(summary: dict, budget: dict) -> tuple[str, str]:
    """('p50 ≤ 50 ms, p95 ≤ 100 ms', 'PASS') for one control's latencies against a budget."""
    if not budget:
        return "", ""
    if summary.get("error") or summary.get("p50_ms") is None:
        return ", ".join(f"{k[:3]} ≤ {v} ms" for k, v in budget.items()), verdict(False)
    ok = all(summary[key] <= limit for key, limit in budget.items())
    return ", ".join(f"{k[:3]} ≤ {v} ms" for k, v in budget.items()), verdict(ok)


def latency_table(sizes: dict, budgets: dict) -> tuple[str, list[tuple[str, bool]]]:
    """Rows size × control, and the budget checks they made."""
    rows, checks = [], []
    for name, size in sizes.items():
        for control, summary in size["controls"].items():
            budget_text, result = latency_budget_cells(summary, budgets.get(name, {}))
            if result:
                checks.append((f"{name} {control}: {budget_text}", result == "PASS"))
            rows.append(
                [
                    f"{name} ({size['d_model']} × {size['n_positions']})",
                    control,
                    summary["steps"],
                    number(summary["p50_ms"]),
                    number(summary["p95_ms"]),
                    number(summary["max_ms"]),
                    number(summary["plots_repainted_median"]),
                    budget_text,
                    result + (f" (stopped: {summary['error'][:120]})" if summary["error"] else ""),
                ]
            )
    header = [
        "size (d_model × positions)",
        "control",
        "steps",
        "p50 ms",
        "p95 ms",
        "max ms",
        "plot redraws / step",
        "budget",
        "",
    ]
    return table(header, rows), checks


MILESTONES = (
    ("first_contentful_paint_ms", "first contentful paint"),
    ("prerendered_visible_ms", "prerendered content painted"),
    ("pyodide_loaded_ms", "Pyodide loaded (status 'Installing environment')"),
    ("packages_installed_ms", "packages installed (status 'Executing code')"),
    ("interactive_ms", "interactive (time to interactive, TTI)"),
    ("interactive_painted_ms", "interactive, painted"),
)


def ratio(ours, theirs):
    return ours / theirs if ours is not None and theirs else None


def pyodide_tables(result: dict) -> tuple[str, list[tuple[str, bool]]]:
    if "skipped" in result:
        return f"Pyodide site: skipped — {result['skipped']}", []
    explorer, baseline = result["medians"]["explorer"], result["medians"]["baseline"]
    checks = []
    rows = []
    for key, label in MILESTONES:
        rows.append(
            [
                label,
                number(explorer[key]),
                number(baseline[key]),
                number(ratio(explorer[key], baseline[key]), 2, "×"),
            ]
        )
    for key, label, scale, digits in (
        ("requests", "requests until interactive", 1, 0),
        ("wire_bytes", "MiB sent until interactive (compressed)", MIB, 2),
        ("raw_bytes", "MiB until interactive (uncompressed)", MIB, 2),
    ):
        ours = explorer[key] / scale if explorer[key] is not None else None
        theirs = baseline[key] / scale if baseline[key] is not None else None
        rows.append(
            [
                label,
                number(ours, digits),
                number(theirs, digits),
                number(ratio(ours, theirs), 3, "×"),
            ]
        )
    tti = ratio(explorer["interactive_ms"], baseline["interactive_ms"])
    wire = ratio(explorer["wire_bytes"], baseline["wire_bytes"])
    checks.append(
        (
            f"TTI ≤ {TTI_RATIO_BUDGET}× baseline (is {number(tti, 2, '×')})",
            tti is not None and tti <= TTI_RATIO_BUDGET,
        )
    )
    checks.append(
        (
            f"bytes ≤ {BYTES_RATIO_BUDGET}× baseline (is {number(wire, 3, '×')})",
            wire is not None and wire <= BYTES_RATIO_BUDGET,
        )
    )
    prerendered, loaded = explorer["prerendered_visible_ms"], explorer["pyodide_loaded_ms"]
    checks.append(
        (
            f"prerendered page visible ({number(prerendered)} ms) before Pyodide loaded "
            f"({number(loaded)} ms)",
            prerendered is not None and loaded is not None and prerendered < loaded,
        )
    )
    text = [
        f"Cold start, median of {result['runs']} fresh-profile loads each (ms from navigation):",
        "",
        table(["milestone", "explorer", "baseline", "ratio"], rows),
    ]
    if result.get("latency"):
        latency_text, latency_checks = latency_table(result["latency"], PYODIDE_LATENCY_BUDGETS)
        checks += latency_checks
        text += [
            "",
            f"Interaction latency in the Pyodide site ({result['steps']} steps each):",
            "",
            latency_text,
        ]
    if result.get("explorer_console_errors") or result.get("explorer_not_found"):
        text += [
            "",
            f"Console errors: {len(result.get('explorer_console_errors', []))}; "
            f"404s: {result.get('explorer_not_found')}",
        ]
    return "\n".join(text), checks


def compute_tables(result: dict) -> str:
    rows = [
        [
            f"{name} ({size['d_model']} × {size['n_positions']})",
            number(size["ours_ms"], 3),
            number(size["reference_ms"], 3),
            number(size["ratio"], 2, "×"),
            f"{size['max_abs_difference']:.1e}",
        ]
        for name, size in result["matrix"].items()
    ]
    text = [
        "PE matrix, `encoding.positional_encoding` against the textbook NumPy construction "
        "(median per call):",
        "",
        table(["size", "ours ms", "reference ms", "ratio", "max |difference|"], rows),
    ]
    if result.get("page_steps"):
        rows = [
            [
                f"{name} ({size['d_model']} × {size['n_positions']})",
                control,
                number(summary["p50_ms"], 1),
                number(summary["p95_ms"], 1),
            ]
            for name, size in result["page_steps"].items()
            for control, summary in size["controls"].items()
        ]
        text += [
            "",
            "Python share of one step: the whole page in-process with live Bokeh models "
            "(figures, pane diffs, model updates; no websocket, no browser):",
            "",
            table(["size", "control", "p50 ms", "p95 ms"], rows),
        ]
    return "\n".join(text)


def render(results: dict) -> tuple[str, list[tuple[str, bool]]]:
    """All tables of a run, and every budget check."""
    sections, checks = [], []
    served = results.get("served")
    if served and "skipped" not in served:
        text, served_checks = latency_table(served["sizes"], SERVED_BUDGETS)
        checks += [(f"served {label}", ok) for label, ok in served_checks]
        sections.append(
            f"### Served app (`panel serve`, Chromium {served['browser']}, "
            f"{served['steps']} steps per control)\n\n"
            "Latency = last DOM mutation, Plotly afterplot or WebGL clear − keydown, once the "
            "changed readouts and titles show the new values and nothing changed for "
            f"{results['quiet_ms']} ms.\n\n{text}"
        )
    elif served:
        sections.append(f"### Served app\n\nskipped — {served['skipped']}")
    pyodide = results.get("pyodide")
    if pyodide:
        text, pyodide_checks = pyodide_tables(pyodide)
        checks += [(f"Pyodide {label}", ok) for label, ok in pyodide_checks]
        sections.append(f"### Pyodide site (offline, ../shared/pyodide-offline)\n\n{text}")
    if results.get("compute"):
        sections.append(f"### Compute\n\n{compute_tables(results['compute'])}")
    if checks:
        sections.append(
            "### Budgets\n\n"
            + table(["budget", ""], [[label, verdict(ok)] for label, ok in checks])
        )
    return "\n\n".join(sections), checks
