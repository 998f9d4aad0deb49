"""plotly.js as the site loads it: the cartesian partial bundle, and the full one when a figure
needs a trace the partial bundle lacks.

Panel 1.9.4's page loads the full plotly.js bundle (4.8 MB, 1.45 MB gzipped). The app draws
heatmap, scatter and bar traces on every view, and scatter3d only in the learned view's 3D PCA.
The page loads the matching `plotly.js-cartesian-dist-min` (1.3 MB, 0.45 MB gzipped) instead,
installed by `./build.sh setup` into .cache/npm (or named by $PE_PLOTLY_PARTIAL), the same
plotly.js version as Panel's bundle (the build stops otherwise), checked against its pinned
sha256. static/plotly-on-demand.js loads the full bundle, still in the site, the first time a
figure has another trace type.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from .vendor_runtime import RuntimeMismatch, RuntimeUnavailable, sha256

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "plotly.js-cartesian-dist-min"
VERSION = "3.1.0"
FILE = "plotly-cartesian.min.js"
SHA256 = "c462b40a1a542e16c3533f97d39fbbb91af4f5267f3cbf23bd70d785efc44c38"
# Where Panel's page loads plotly.js from, in the site's runtime/ folder.
PLOTLY_DIR = "runtime/cdn.holoviz.org/panel/1.9.4/dist/bundled/plotlyplot/"
FULL = re.compile(r"plotly-(\d+\.\d+\.\d+)\.min\.js")
# The script that loads the full bundle on demand (it must follow the partial bundle).
ON_DEMAND = "static/plotly-on-demand.js"


def partial_source() -> Path:
    """The partial bundle: $PE_PLOTLY_PARTIAL, else the npm package in .cache/npm."""
    named = os.environ.get("PE_PLOTLY_PARTIAL")
    return Path(named) if named else REPO / ".cache" / "npm" / "node_modules" / PACKAGE / FILE


def full_bundle(site: Path) -> tuple[str, str]:
    """(site-relative path, version) of the full plotly.js bundle Panel's page loads."""
    found = sorted((site / PLOTLY_DIR).glob("plotly-*.min.js"))
    full = [(path, FULL.fullmatch(path.name)) for path in found]
    full = [(path, match[1]) for path, match in full if match]
    if len(full) != 1:
        raise RuntimeMismatch(f"expected one full plotly.js bundle in {PLOTLY_DIR}, found {found}")
    path, version = full[0]
    return path.relative_to(site).as_posix(), version


def vendor_partial(site: Path) -> tuple[str, str]:
    """Copy the checked partial bundle beside Panel's full one: (full, partial) site paths."""
    full, version = full_bundle(site)
    if version != VERSION:
        raise RuntimeMismatch(
            f"Panel's page loads plotly.js {version}, but the partial bundle is {PACKAGE} "
            f"{VERSION}: pin the partial bundle of Panel's version (scripts/plotly_bundle.py, "
            "build.sh)"
        )
    source = partial_source()
    if not source.is_file():
        raise RuntimeUnavailable(
            f"{source} is missing: run ./build.sh setup (npm install {PACKAGE}@{VERSION}) "
            "or set PE_PLOTLY_PARTIAL"
        )
    if sha256(source) != SHA256:
        raise RuntimeMismatch(f"refusing {source}: it is not {PACKAGE} {VERSION} (sha256 differs)")
    partial = f"{PLOTLY_DIR}plotly-cartesian-{VERSION}.min.js"
    shutil.copyfile(source, site / partial)
    return full, partial
