"""Markdown tables of a benchmark run, with each budget marked PASS or FAIL."""

from __future__ import annotations

MIB = 2**20

# Issue 5, "Fast at every size".
SERVED_BUDGETS = {"S": {"p50_ms": 50, "p95_ms": 100}, "L": {"p50_ms": 150}}
PYODIDE_LATENCY_BUDGETS = {"S": {"p50_ms": 150}}
# Pyodide start-up, the explorer against the baseline's cold visit (ratios of medians); issue 34,
# "Lighter and quicker on every visit".
TTI_RATIO_BUDGET = 0.4  # cold visit: time to interactive
RETURN_TTI_RATIO_BUDGET = 0.3  # return visit (HTTP cache, service worker) against a cold baseline
PRERENDER_RATIO_BUDGET = 1.0  # cold visit: prerendered content painted
BYTES_RATIO_BUDGET = 0.35  # cold visit: bytes sent (compressed, as on the wire)


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


PHASES = (
    ("prerendered_visible_ms", "prerender painted"),
    ("runtime_loaded_ms", "runtime loaded"),
    ("packages_ready_ms", "packages ready"),
    ("imports_done_ms", "imports done"),
    ("page_built_ms", "page built (worker 'render')"),
    ("interactive_ms", "interactive (TTI)"),
)

# Results made before the return visit was measured: cold start only.
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


def mib(value):
    return None if value is None else value / MIB


def ratio_check(label: str, ours, theirs, budget: float, digits: int = 2) -> tuple[str, bool]:
    """('cold TTI ≤ 0.5× baseline cold (is 0.43×)', True)."""
    value = ratio(ours, theirs)
    return (
        f"{label} ≤ {budget}× baseline cold (is {number(value, digits, '×')})",
        value is not None and value <= budget,
    )


def startup_checks(explorer: dict, explorer_return: dict | None, baseline: dict) -> list:
    """The start-up budgets, each a ratio to the baseline's cold visit."""
    checks = [
        ratio_check(
            "cold TTI", explorer["interactive_ms"], baseline["interactive_ms"], TTI_RATIO_BUDGET
        )
    ]
    if explorer_return is not None:
        checks.append(
            ratio_check(
                "return TTI",
                explorer_return["interactive_ms"],
                baseline["interactive_ms"],
                RETURN_TTI_RATIO_BUDGET,
            )
        )
    checks.append(
        ratio_check(
            "cold prerender painted",
            explorer["prerendered_visible_ms"],
            baseline["prerendered_visible_ms"],
            PRERENDER_RATIO_BUDGET,
        )
    )
    checks.append(
        ratio_check(
            "cold bytes sent",
            explorer["wire_bytes"],
            baseline["wire_bytes"],
            BYTES_RATIO_BUDGET,
            3,
        )
    )
    return checks


def phase_table(result: dict) -> str:
    """Rows = phases, MiB sent, requests; columns = each site's cold and return visit, then the
    explorer's cold and return visit as ratios of the baseline's cold visit."""
    order = result.get("order") or list(result["medians"])
    names = ["explorer", *(n for n in order if n not in ("explorer", "baseline")), "baseline"]
    columns = [
        (name, visit, result[key][name])
        for name in names
        for visit, key in (("cold", "medians"), ("return", "return_medians"))
    ]
    cold, back = result["medians"]["explorer"], result["return_medians"]["explorer"]
    baseline = result["medians"]["baseline"]
    rows = []
    for key, label, scale, digits in (
        *((key, label, None, 0) for key, label in PHASES),
        ("wire_bytes", "MiB sent", MIB, 2),
        ("requests", "requests", None, 0),
    ):

        def value(medians, key=key, scale=scale):
            raw = medians.get(key)
            return raw / scale if raw is not None and scale else raw

        rows.append(
            [
                label,
                *(number(value(medians), digits) for _, _, medians in columns),
                number(ratio(value(cold), value(baseline)), 2, "×"),
                number(ratio(value(back), value(baseline)), 2, "×"),
            ]
        )
    header = [
        "phase (ms from navigation)",
        *(f"{name} {visit}" for name, visit, _ in columns),
        "explorer cold ÷ baseline cold",
        "explorer return ÷ baseline cold",
    ]
    return table(header, rows)


def host_table(result: dict) -> str:
    """Requests and MiB sent per host in the explorer's and the baseline's cold visits."""
    explorer = result["medians"]["explorer"].get("hosts", {})
    baseline = result["medians"]["baseline"].get("hosts", {})
    rows = []
    for host in sorted(set(explorer) | set(baseline)):
        ours, theirs = explorer.get(host, {}), baseline.get(host, {})
        rows.append(
            [
                host,
                number(ours.get("requests", 0)),
                number(mib(ours.get("wire_bytes", 0)), 2),
                number(theirs.get("requests", 0)),
                number(mib(theirs.get("wire_bytes", 0)), 2),
            ]
        )
    explorer_all, baseline_all = result["medians"]["explorer"], result["medians"]["baseline"]
    rows.append(
        [
            "all (median of the totals)",
            number(explorer_all["requests"]),
            number(mib(explorer_all["wire_bytes"]), 2),
            number(baseline_all["requests"]),
            number(mib(baseline_all["wire_bytes"]), 2),
        ]
    )
    header = ["host", "explorer requests", "explorer MiB", "baseline requests", "baseline MiB"]
    return table(header, rows)


def failed_loads(result: dict) -> list[str]:
    """'explorer return 2: not interactive after 300 s' for every load that went wrong."""
    lines = []
    for visit, key in (("cold", "loads"), ("return", "returns")):
        for name, loads in result.get(key, {}).items():
            for attempt, load in enumerate(loads, 1):
                if load.get("error") or not load.get("interactive"):
                    reason = load.get("error") or "not interactive"
                    lines.append(f"{name} {visit} {attempt}: {reason}")
    return lines


def service_worker_note(result: dict) -> str:
    """How full each site's service-worker cache was before its return visit."""
    parts = []
    for name in result.get("order", []):
        caches = [
            load.get("service_worker_cache") for load in result["loads"].get(name, []) if load
        ]
        caches = [cache for cache in caches if cache and (cache["workers"] or cache["entries"])]
        if caches:
            entries = "/".join(str(cache["entries"]) for cache in caches)
            waited = max(cache["waited_ms"] for cache in caches) / 1000
            still = sum(not cache["stable"] for cache in caches)
            parts.append(
                f"{name} {entries} entries (waited up to {waited:.1f} s"
                + (f", {still} still growing" if still else "")
                + ")"
            )
        elif result["loads"].get(name):
            parts.append(f"{name} none")
    return "Service-worker cache before the return visit: " + "; ".join(parts) + "."


def legacy_cold_table(result: dict) -> tuple[str, list[tuple[str, bool]]]:
    """The cold-start table of results made before return visits were measured."""
    explorer, baseline = result["medians"]["explorer"], result["medians"]["baseline"]
    rows = [
        [
            label,
            number(explorer[key]),
            number(baseline[key]),
            number(ratio(explorer[key], baseline[key]), 2, "×"),
        ]
        for key, label in MILESTONES
    ]
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
    text = "\n".join(
        [
            f"Cold start, median of {result['runs']} fresh-profile loads each "
            "(ms from navigation):",
            "",
            table(["milestone", "explorer", "baseline", "ratio"], rows),
        ]
    )
    return text, startup_checks(explorer, None, baseline)


def pyodide_tables(result: dict) -> tuple[str, list[tuple[str, bool]]]:
    if "skipped" in result:
        return f"Pyodide site: skipped — {result['skipped']}", []
    if "return_medians" not in result:
        startup, checks = legacy_cold_table(result)
        text = [startup]
    else:
        checks = startup_checks(
            result["medians"]["explorer"],
            result["return_medians"]["explorer"],
            result["medians"]["baseline"],
        )
        text = [
            f"Start-up phases (median of {result['runs']}): a cold visit in a fresh browser "
            "profile, then a return visit in the same profile (HTTP cache and service worker "
            "kept); ms from navigation. Runtime loaded / packages ready / imports done are the "
            "worker's status messages: the explorer's 'Importing Panel and the app' (Pyodide "
            "loaded with every package, so both) and 'Executing code'; the baseline's "
            "'Installing environment' and 'Executing code' (its imports and page build are one "
            "step).",
            "",
            phase_table(result),
            "",
            "Requests and MiB sent per host, cold visit (median):",
            "",
            host_table(result),
            "",
            service_worker_note(result),
        ]
        failures = failed_loads(result)
        if failures:
            text += ["", "Loads that went wrong: " + "; ".join(failures)]
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
