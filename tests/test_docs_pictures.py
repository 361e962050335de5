"""The pictures of the docs (docs/pictures.py): every picture a page shows has alt text and is
drawn by the build; README's copies are up to date; and in the built site every <img> is a
real, non-empty image of its type (SVG that parses with an <svg> root, PNG with the PNG
signature). The site is built with MkDocs when the `docs` extra is installed (.ci/run runs
this file again after installing it)."""

from __future__ import annotations

import importlib.util
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"

_spec = importlib.util.spec_from_file_location("pictures", DOCS / "pictures.py")
pictures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pictures)

IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]+)\)")
PNG = b"\x89PNG\r\n\x1a\n"
LEARN = ("tutorial.md", "students.md", "beyond-the-gradient.md", "fitting.md")


def images(path: Path) -> list[tuple[str, str]]:
    """(alt, src) of each Markdown image in ``path``, outside code."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    assert "<img" not in text, f"{path.name}: write pictures as ![alt](src), not <img>"
    return [(m["alt"], m["src"]) for m in IMAGE.finditer(text)]


def assert_image(name: str, content: bytes) -> None:
    """``content`` is a non-empty image of the type its name says."""
    assert content, f"{name} is empty"
    suffix = Path(name).suffix.lower()
    if suffix == ".svg":
        root = ET.fromstring(content)
        assert root.tag in ("svg", "{http://www.w3.org/2000/svg}svg"), f"{name}: no <svg> root"
    elif suffix == ".png":
        assert content.startswith(PNG), f"{name} is not a PNG"
    else:
        raise AssertionError(f"{name}: pictures are .svg or .png")


def test_every_picture_of_the_pages_has_alt_text_and_is_drawn_by_the_build() -> None:
    shown: set[str] = set()
    for page in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        folder = "docs/images/" if page.name == "README.md" else "images/"
        for alt, src in images(page):
            assert len(alt.split()) >= 5, (
                f"{page.name}: {src} needs alt text that says what it shows"
            )
            assert src.startswith(folder), f"{page.name}: {src} is not one of the pictures"
            name = src.removeprefix(folder)
            assert name in pictures.PICTURES, f"{page.name}: no command draws {src}"
            if page.name == "README.md":
                assert name in pictures.COMMITTED, f"README shows {name}, which is not committed"
            shown.add(name)
    assert shown == set(pictures.PICTURES), "a picture is drawn but shown nowhere"


def test_the_learning_pages_have_at_least_six_pictures_each_page_one() -> None:
    counts = {page: len(images(DOCS / page)) for page in LEARN}
    assert all(counts.values()), counts
    assert len({src for page in LEARN for _, src in images(DOCS / page)}) >= 6


def test_the_committed_pictures_are_what_gradcalc_draws_now() -> None:
    committed = {p.name for p in (DOCS / pictures.IMAGES).iterdir()}
    assert committed == set(pictures.COMMITTED), "docs/images/ holds only README's pictures"
    for name in pictures.COMMITTED:
        assert (DOCS / pictures.IMAGES / name).read_bytes() == pictures.draw(name), (
            f"docs/images/{name} is out of date: run `python docs/pictures.py` and commit it"
        )


def test_a_failing_command_fails_the_build(monkeypatch) -> None:
    monkeypatch.setitem(pictures.PICTURES, "broken.svg", 'gradcalc plot "x^" --at x=1 --out {out}')
    with pytest.raises(RuntimeError, match=r"broken.svg was not drawn: .* exited with 2"):
        pictures.draw("broken.svg")


class _Images(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.found.append(dict(attrs))


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built strictly as CI builds it (skipped without the `docs` extra)."""
    pytest.importorskip("mkdocs", reason="building the site needs the docs extra")
    pytest.importorskip("material", reason="building the site needs the docs extra")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    folder = tmp_path_factory.mktemp("site")
    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(folder), strict=True)
    config.plugins.on_startup(command="build", dirty=False)
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()
    return folder


def test_the_built_site_shows_every_picture(site: Path) -> None:
    seen: dict[str, int] = {}
    for page in site.rglob("*.html"):
        parser = _Images()
        parser.feed(page.read_text(encoding="utf-8"))
        for img in parser.found:
            src = img.get("src") or ""
            assert len((img.get("alt") or "").split()) >= 5, f"{page}: <img src={src}> has no alt"
            url = urlsplit(src)
            assert not url.scheme and not url.netloc, f"{page}: {src} is not part of the site"
            target = (page.parent / unquote(url.path)).resolve()
            assert target.is_file(), f"{page.relative_to(site)}: {src} does not exist"
            assert_image(target.name, target.read_bytes())
            seen[target.name] = seen.get(target.name, 0) + 1
    assert set(seen) == set(pictures.PICTURES)
    for page in LEARN:
        html = (site / page.removesuffix(".md") / "index.html").read_text(encoding="utf-8")
        assert "<img" in html, f"{page} shows no picture"


_rooms = importlib.util.spec_from_file_location("rooms", DOCS / "rooms.py")
rooms = importlib.util.module_from_spec(_rooms)
_rooms.loader.exec_module(rooms)


def test_the_rooms_table_of_architecture_md_gives_their_sizes() -> None:
    """docs/architecture.md's table of rooms: every room of ROOMS, its modules counted in
    the package, its lines to within a tenth (they grow with every change)."""
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    row = re.compile(r"^\| `(\w+)/(\w+)/?` \| .* \| (\d+) \| ([\d,]+) \|$", re.M)
    shown = {(m[1], m[2]): (int(m[3]), int(m[4].replace(",", ""))) for m in row.finditer(text)}
    real = {(r.layer, r.name): (r.modules, r.lines) for r in rooms.rooms() if r.name}
    real = {room: size for room, size in real.items() if room[0] in rooms.ROOMS}
    assert set(shown) == set(real), "the table's rooms are not ROOMS' (docs/rooms.py --table)"
    for room, (modules, lines) in real.items():
        assert shown[room][0] == modules, f"{room}: {modules} modules, not {shown[room][0]}"
        assert abs(shown[room][1] - lines) <= lines / 10, f"{room}: {lines} lines, see --table"


@pytest.mark.slow  # a traced process
def test_the_path_is_traced_through_the_layers() -> None:
    """docs/rooms.py's trace of grad: it reads, computes, shows, in that order, and each step
    is a call between two gradcalc modules (against the command's own layers)."""
    path = rooms.steps(rooms.trace())
    called = [f"{rooms.layer(s.callee)}:{s.function}" for s in path]
    assert called.index("lang:read") < called.index("engine:gradient_at")
    assert called.index("engine:gradient_at") < called.index("render:gradient_tables")
    assert all(step.caller != step.callee for step in path)
    assert all(rooms.FLOOR not in (rooms.layer(s.caller), rooms.layer(s.callee)) for s in path)
    svg = ET.fromstring(rooms.picture(path, rooms.rooms()))
    texts = " ".join(t.text or "" for t in svg.iter("{http://www.w3.org/2000/svg}text"))
    assert all(name + "/" in texts for name in rooms.LAYERS)


_shots = importlib.util.spec_from_file_location("screenshots", DOCS / "screenshots.py")
screenshots = importlib.util.module_from_spec(_shots)
_shots.loader.exec_module(screenshots)


def test_screenshots_are_skipped_with_a_note_without_chromium(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(screenshots.shutil, "which", lambda name: None)
    assert screenshots.main(tmp_path / "shots") == 0
    assert capsys.readouterr().out.startswith("skipped: no Chromium found")
    assert not (tmp_path / "shots").exists()


def test_a_tall_screenshot_is_cut_into_tiles_without_the_blank_ones(tmp_path):
    matplotlib = pytest.importorskip("matplotlib.image")
    import numpy as np

    page = np.ones((2500, 40, 3))
    page[100:120, 5:30] = 0.2  # something in the first tile
    page[2400:2450] = 0.0  # and in the third; the second is blank
    matplotlib.imsave(tmp_path / "page.png", page)
    screenshots.tiles(tmp_path / "page.png", tmp_path, "tutorial")
    saved = sorted(p.name for p in tmp_path.glob("tutorial-*.png"))
    assert saved == ["tutorial-01.png", "tutorial-03.png"]
    first = matplotlib.imread(tmp_path / "tutorial-01.png")
    last = matplotlib.imread(tmp_path / "tutorial-03.png")
    assert first.shape[:2] == (screenshots.TILE, 40) and last.shape[:2] == (500, 40)
    assert (last[400:450, :, :3] == 0).all()


def test_the_numbers_in_a_tape_pictures_alt_text_are_in_the_picture() -> None:
    """The alt text of a tape graph reads its numbers off the picture: they must be there."""
    for page in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        for alt, src in images(page):
            name = src.rsplit("/", 1)[-1]
            if not name.startswith("tape-"):
                continue
            root = ET.fromstring((DOCS / pictures.IMAGES / name).read_bytes())
            texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
            shown = set(re.findall(r"\d+(?:\.\d+)?", texts))
            for number in re.findall(r"\d+(?:\.\d+)?", alt):
                assert number in shown, f"{page.name}: the alt text of {name} says {number}"
