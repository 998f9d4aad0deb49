"""The phone benchmark's pure parts: the start page that opens only the site's own page, the CPU
quota's arithmetic, finding the browser's processes, and the summary's ratios."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from benchmarks import cpu_limit, phone

NODE = shutil.which("node") or next(
    (
        str(p)
        for p in Path(__file__)
        .parents[2]
        .glob(".venv/lib/python*/site-packages/playwright/driver/node")
    ),
    None,
)


def opened(html: str, search: str) -> list[str]:
    """Where the start page's script sends the browser for this query string (run in Node with
    a stand-in `location`): the URLs given to location.replace, in order."""
    script = re.search(r"<script>(.*?)</script>", html, re.S).group(1)
    stub = (
        "const opened = [];"
        f"const location = {{search: {search!r}, replace: (url) => opened.push(url)}};"
        f"{script};console.log(JSON.stringify(opened));"
    )
    result = subprocess.run([NODE, "-e", stub], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


@pytest.mark.skipif(NODE is None, reason="no node to run the start page's script")
@pytest.mark.parametrize("page", ["index.html", "app.html", "baseline_app.html"])
def test_start_page_opens_its_page_only_when_asked(page):
    html = phone.start_page(page)
    assert opened(html, phone.OPEN_QUERY) == [page]
    assert opened(html, "") == []
    assert opened(html, "?to=https://example.com/") == []


@pytest.mark.parametrize(
    "page",
    [
        "https://example.com/index.html",
        "//example.com/index.html",
        "../index.html",
        "sub/index.html",
        "javascript:alert(1).html",
        "index.html</script><script>alert(1)</script>.html",
        "index.html?x=1",
        "index.htm",
        ".html",
        phone.START_PAGE,
    ],
)
def test_start_page_refuses_anything_but_a_page_of_the_site_folder(page):
    with pytest.raises(ValueError):
        phone.start_page(page)


def test_the_site_copy_has_the_start_page_beside_its_pages(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!DOCTYPE html><title>app</title>")
    copy = phone.with_start_page(site, "index.html", tmp_path / "out")
    assert (copy / "index.html").read_text() == (site / "index.html").read_text()
    assert (copy / phone.START_PAGE).read_text() == phone.start_page("index.html")
    with pytest.raises(FileNotFoundError):
        phone.with_start_page(site, "missing.html", tmp_path / "other")


@pytest.mark.parametrize(
    ("rate", "period_us", "quota_us"),
    [(1, 20_000, 20_000), (2, 20_000, 10_000), (4, 20_000, 5_000), (4.66, 20_000, 4_292)],
)
def test_the_quota_is_one_core_divided_by_the_rate(rate, period_us, quota_us):
    assert cpu_limit.quota_us(rate, period_us) == quota_us


@pytest.mark.parametrize(("rate", "period_us"), [(0.5, 20_000), (30, 20_000)])
def test_a_quota_that_would_speed_up_or_that_the_kernel_refuses_is_an_error(rate, period_us):
    with pytest.raises(ValueError):
        cpu_limit.quota_us(rate, period_us)


def test_descendants_are_every_process_below_the_root():
    parents = {10: 1, 11: 10, 12: 11, 13: 11, 14: 12, 20: 1, 21: 20}
    assert cpu_limit.descendants(10, parents) == [11, 12, 13, 14]
    assert cpu_limit.descendants(14, parents) == []


def test_process_parents_reads_the_parent_past_a_command_name_with_parentheses(tmp_path):
    for pid, comm, ppid in [(7, "chromium", 3), (8, "Web Content) (x", 7)]:
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "stat").write_text(f"{pid} ({comm}) S {ppid} 8 8 0 -1\n")
    (tmp_path / "self").mkdir()
    assert cpu_limit.process_parents(tmp_path) == {7: 3, 8: 7}


def load(interactive_ms: int, loop_ms: dict | None = None) -> dict:
    return {"interactive_ms": interactive_ms, "loop_ms": loop_ms or {}}


def test_summary_gives_ratios_against_the_hello_app_and_the_loop_factor():
    page_and_worker = {"page": 100, "worker app.js": 100}
    slowed = {"page": 400, "worker app.js": 380}
    loads = {
        "phone 1×": {
            "explorer": {"cold": [load(4000, page_and_worker)], "return": [load(2000)]},
            "baseline": {"cold": [load(10000, page_and_worker)], "return": [load(8000)]},
        },
        "phone 4×": {
            "explorer": {"cold": [load(16000, slowed)], "return": [None]},
            "baseline": {"cold": [load(32000, slowed)], "return": [None]},
        },
    }
    result = phone.summarise(loads, {"phone 1×": 1, "phone 4×": 4})
    assert result["phone 1×"]["cold"]["explorer_over_baseline"] == pytest.approx(0.4)
    assert result["phone 1×"]["return"]["explorer_over_baseline"] == pytest.approx(0.25)
    assert result["phone 1×"]["return"]["explorer_over_baseline_cold"] == pytest.approx(0.2)
    assert result["phone 4×"]["cold"]["explorer_over_baseline"] == pytest.approx(0.5)
    assert result["phone 4×"]["return"]["explorer_over_baseline"] is None
    assert result["phone 4×"]["loop_factor"]["explorer"] == {
        "page": pytest.approx(4.0),
        "worker app.js": pytest.approx(3.8),
    }
    assert "| phone 4× | cold | 16.0 s |" in phone.table(result)
