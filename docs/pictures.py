"""The pictures of the docs, drawn by gradcalc itself whenever the site is built.

Each picture is the file a gradcalc command writes (or a script of docs/: ``python
docs/rooms.py`` traces a command and draws its path): :data:`PICTURES` maps the picture's
name to the command (``{out}`` is where it writes), and the pages show the command beside the
picture. As an MkDocs hook (mkdocs.yml, ``hooks:``) this file runs every command when the
site is built and adds what it wrote to the site as ``images/NAME``: no picture is drawn by
hand, and none can be stale.

README.md is read on GitHub too, where nothing is built, so the pictures it shows
(:data:`COMMITTED`, gradcalc's own SVG drawings, the same bytes on every machine) are also
kept in ``docs/images/``. After a change that alters them, rewrite them from the repository
root with::

    python docs/pictures.py

``tests/test_docs_pictures.py`` fails while they are out of date, and checks that every
picture of the built site is a real image with alt text. ``python docs/screenshots.py``
opens the pages in headless Chromium for a human look.

The imports of gradcalc, MkDocs and Typer's test runner are inside the functions, so the
file can be read as a catalogue without them.

>>> sorted(COMMITTED) == sorted(n for n in PICTURES if n.startswith("tape-"))
True
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
IMAGES = "images"  # the pictures' folder, in docs/ and on the site

PICTURES = {
    "tape-headline.svg": 'gradcalc graph "3*w1**2+2*w1*w2" --at w1=5,w2=3 --out {out}',
    "tape-chain-rule.svg": 'gradcalc graph "y = x^2; z = y^2" --at x=3 --out {out}',
    "tangent.svg": 'gradcalc plot "x^2" --at x=2 --range -4:4 --out {out}',
    "gradient-arrow.svg": 'gradcalc plot "x^2 + y^2" --at x=1,y=2 --out {out}',
    "saddle.svg": 'gradcalc plot "x^2 - y^2" --at x=0,y=0 --range -2:2 --out {out}',
    "descent-bowl.svg": (
        'gradcalc minimize "(x-3)^2 + 2(y+1)^2" --from x=0,y=0 --lr 0.1 --every 1'
        " --plot --out {out}"
    ),
    "descent-adam.svg": (
        'gradcalc minimize "(1-x)^2 + 100(y-x^2)^2" --from x=-1.2,y=1 --method adam'
        " --steps 20000 --every 50 --plot --out {out}"
    ),
    "fit-line.svg": 'gradcalc fit "a*x + b" docs/examples/line.csv --params a,b --plot --out {out}',
    "fit-decay.svg": (
        'gradcalc fit "A*exp(-k*t) + c" docs/examples/decay.csv --params A,k,c'
        " --init A=5,k=0.5,c=1 --plot --out {out}"
    ),
    "fit-trapped.svg": (
        'gradcalc fit "A*exp(-k*t) + c" docs/examples/decay.csv --params A,k,c --init k=-1'
        " --plot --out {out}"
    ),
    # the layers and rooms, and one grad's path through them, traced (docs/architecture.md)
    "rooms.svg": "python docs/rooms.py --out {out}",
}
COMMITTED = ("tape-headline.svg", "tape-chain-rule.svg")  # shown by README.md


def draw(name: str) -> bytes:
    """Run the command of picture ``name`` (from the repository root, in-process) and return
    the file it wrote.

    Raises:
        RuntimeError: the command failed (a usage error, an internal error) or wrote nothing.
    """
    from typer.testing import CliRunner

    from gradcalc.cli.app import app

    with tempfile.TemporaryDirectory(prefix="gradcalc-picture-") as folder:
        out = Path(folder) / name
        args = shlex.split(PICTURES[name].format(out=shlex.quote(str(out))))
        if args[0] == "python":  # a script of docs/, in its own process
            done = subprocess.run([sys.executable, *args[1:]], cwd=ROOT, capture_output=True)
            code, output = done.returncode, (done.stdout + done.stderr).decode(errors="replace")
        else:
            here = Path.cwd()
            os.chdir(ROOT)  # the commands name data files relative to the root
            try:
                result = CliRunner().invoke(app, args[1:])
            finally:
                os.chdir(here)
            code, output = result.exit_code, result.output
        # fit and minimize exit with 1 when they did not converge: a picture worth showing
        if code not in (0, 1) or not out.is_file() or out.stat().st_size == 0:
            raise RuntimeError(
                f"the picture {name} was not drawn: {PICTURES[name]} exited with "
                f"{code}: {output.strip()}"
            )
        return out.read_bytes()


def on_files(files: Any, config: Any) -> Any:
    """MkDocs hook: draw every picture and add it to the site as ``images/NAME`` (in place
    of the committed copy, if any)."""
    from mkdocs.structure.files import File

    for name in PICTURES:
        uri = f"{IMAGES}/{name}"
        committed = files.get_file_from_path(uri)
        if committed is not None:
            files.remove(committed)
        files.append(File.generated(config, uri, content=draw(name)))
    return files


def main() -> None:
    """Rewrite the committed pictures in docs/images/."""
    folder = ROOT / "docs" / IMAGES
    folder.mkdir(exist_ok=True)
    for name in COMMITTED:
        path = folder / name
        picture = draw(name)
        if not path.is_file() or path.read_bytes() != picture:
            path.write_bytes(picture)
            print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
