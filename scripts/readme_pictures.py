"""The README's pictures: the page in light and dark at 1280 px, and on a 390 px phone, taken from
a built site opened offline (../shared/pyodide-offline), as small PNGs in docs/pictures/.

    .venv/bin/python -m scripts.readme_pictures dist
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PHONE = {
    "viewport": (390, 844),
    "context_options": {"is_mobile": True, "has_touch": True, "device_scale_factor": 3},
}
# name: (query, screen, width of the picture in px)
PICTURES = {
    "light": ("?theme=light", {"viewport": (1280, 900)}, 640),
    "dark": ("?theme=dark", {"viewport": (1280, 900)}, 640),
    "phone": ("?theme=light#heatmap", PHONE, 260),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="a site built by ./build.sh build")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "pictures")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT.parent / "shared" / "pyodide-offline"))
    import offline_site
    from PIL import Image

    args.out.mkdir(parents=True, exist_ok=True)
    for name, (query, screen, width) in PICTURES.items():
        with offline_site.open_offline_site(args.site, "index.html", **screen) as site:
            if not site.goto(query)["interactive"]:
                sys.exit(f"{name}: the page did not become interactive: {site.load['error']}")
            site.settle(settle_ms=2000)
            picture = Image.open(io.BytesIO(site.page.screenshot()))
        height = round(picture.height * width / picture.width)
        picture.convert("RGB").resize((width, height), Image.LANCZOS).save(
            args.out / f"{name}.png", optimize=True
        )
        print(f"{args.out / f'{name}.png'}: {width} × {height}")


if __name__ == "__main__":
    main()
