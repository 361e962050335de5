"""Screenshots of the docs site in headless Chromium, for a human look at the pictures.

From the repository root, with the ``docs`` extra installed:

    python docs/screenshots.py [FOLDER]      # default: site-screenshots/

builds the site into a temporary folder, opens each key page in a window as tall as
:data:`HEIGHT` and saves the page as screen-sized tiles, ``PAGE-01.png``, ``PAGE-02.png``, ...
(blank tiles are left out; Chromium's ``--screenshot`` captures only the window, and at an
``#anchor`` it captures a blank one). Without Chromium (``chromium``, ``chromium-browser`` or
``google-chrome`` on ``PATH``) it says so and exits with 0: CI machines have no browser,
and the test suite checks the pictures themselves (tests/test_docs_pictures.py).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("index", "tutorial", "students", "beyond-the-gradient", "fitting")
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
WIDTH, HEIGHT = 1280, 24000  # the window: taller than the longest page (tutorial: 16000)
TILE = 1000  # the height of a saved tile
TIMEOUT = 180


def shoot(browser: str, url: str, out: Path) -> None:
    """Save a screenshot of ``url`` in a ``WIDTH`` x ``HEIGHT`` window to ``out``."""
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--window-size={WIDTH},{HEIGHT}",
            f"--screenshot={out}",
            url,
        ],
        check=True,
        capture_output=True,
        timeout=TIMEOUT,
    )


def tiles(screenshot: Path, folder: Path, page: str) -> None:
    """Cut ``screenshot`` into ``TILE``-high PNGs ``PAGE-NN.png``, leaving out blank ones."""
    from matplotlib.image import imread, imsave

    pixels = imread(screenshot)
    for k, top in enumerate(range(0, pixels.shape[0], TILE), start=1):
        tile = pixels[top : top + TILE]
        if tile.min() != tile.max():
            imsave(folder / f"{page}-{k:02d}.png", tile)
            print(f"saved {folder / f'{page}-{k:02d}.png'}")


def main(folder: Path) -> int:
    browser = next((found for name in BROWSERS if (found := shutil.which(name))), None)
    if browser is None:
        print(
            "skipped: no Chromium found (Debian/Ubuntu: sudo apt-get install chromium); "
            "the pictures themselves are checked by tests/test_docs_pictures.py"
        )
        return 0
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gradcalc-site-") as site:
        config = load_config(str(ROOT / "mkdocs.yml"), site_dir=site, strict=True)
        config.plugins.on_startup(command="build", dirty=False)
        try:
            build(config)
        finally:
            config.plugins.on_shutdown()
        for page in PAGES:
            html = Path(site) / ("index.html" if page == "index" else f"{page}/index.html")
            screenshot = Path(site) / f"{page}.png"
            shoot(browser, html.as_uri(), screenshot)
            tiles(screenshot, folder, page)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "site-screenshots"))
