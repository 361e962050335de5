"""Files gradcalc writes: never one of the command's inputs (by any name: ``./``, a symlink, a
hard link), and never seen half-written -- a run that fails after writing rows leaves no
``--out`` file, and a file that was there untouched. The truth is the bytes on disk before
and after."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from gradcalc.core.budget import OutOfTime
from gradcalc.core.errors import InputError
from gradcalc.io.files import CHUNK_ROWS
from gradcalc.io.written import Replacing, refuse_overwriting, same_file

POINTS = "id,x,y\na,1,2\nb,3,4\n"


def write(path, content: str | bytes) -> str:
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def one_line_refusal(result, *fragments: str) -> None:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    message = result.stderr.strip()
    assert message.startswith("gradcalc: ") and "\n" not in message, message
    for fragment in fragments:
        assert fragment in message, message


# --- the output is never an input ------------------------------------------------------------


@pytest.mark.parametrize("name", ["same", "dot", "symlink", "hard link"])
def test_out_naming_the_points_file_is_refused_and_the_file_kept(cli, tmp_path, name) -> None:
    points = write(tmp_path / "a.csv", POINTS)
    out = {
        "same": points,
        "dot": os.path.join(str(tmp_path), ".", "a.csv"),
        "symlink": str(tmp_path / "link.csv"),
        "hard link": str(tmp_path / "hard.csv"),
    }[name]
    if name == "symlink":
        os.symlink(points, out)
    if name == "hard link":
        os.link(points, out)
    result = cli("grad", "x*y", "--points", points, "--id", "id", "--out", out)
    one_line_refusal(result, f"--out {out} is the --points file", "another file")
    assert (tmp_path / "a.csv").read_text() == POINTS


def test_a_parquet_input_is_kept_too(cli, tmp_path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = str(tmp_path / "p.parquet")
    pq.write_table(pa.table({"x": [1.0, 2.0], "y": [3.0, 4.0]}), path)
    before = (tmp_path / "p.parquet").read_bytes()
    one_line_refusal(cli("grad", "x*y", "--points", path, "--out", path), "--points file")
    assert (tmp_path / "p.parquet").read_bytes() == before
    folder = tmp_path / "lake"
    folder.mkdir()
    part = str(folder / "000.parquet")
    pq.write_table(pa.table({"x": [1.0], "y": [2.0]}), part)
    result = cli("grad", "x*y", "--points", str(folder / "*.parquet"), "--out", part)
    one_line_refusal(result, f"--out {part} is the --points file")


def test_every_input_file_is_kept(cli, tmp_path, monkeypatch) -> None:
    """--jobs, fit's DATA, an @FILE expression (gradcalc --file) and a --save-gradients file
    that is a --at @FILE value."""
    monkeypatch.chdir(tmp_path)
    jobs = write(tmp_path / "jobs.csv", "x^2 x=1\n")
    one_line_refusal(cli("grad", "--jobs", jobs, "--out", jobs), "is the --jobs file")
    data = write(tmp_path / "line.csv", "x,y\n0,1\n1,3\n2,5\n")
    result = cli("fit", "a*x+b", data, "--params", "a,b", "--plot", "--out", data)
    one_line_refusal(result, "is the data file")
    expression = write(tmp_path / "e.csv", "x*y")
    points = write(tmp_path / "p.csv", POINTS)
    result = cli("--file", "grad", f"@{expression}", "--points", points, "--out", expression)
    one_line_refusal(result, "is the expression file")
    np.save(tmp_path / "W.npy", np.eye(2))
    result = cli("--file", "grad", "sum(W*W)", "--at", "W=@W.npy", "--save-gradients", ".")
    one_line_refusal(result, "--save-gradients ./W.npy is the --at file")
    assert np.array_equal(np.load(tmp_path / "W.npy"), np.eye(2))
    assert (tmp_path / "line.csv").read_text() == "x,y\n0,1\n1,3\n2,5\n"
    assert (tmp_path / "e.csv").read_text() == "x*y"


def test_save_gradients_beside_an_input_of_another_name_is_written(
    cli, tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "init.npy", np.eye(2))
    result = cli("--file", "grad", "sum(W*W)", "--at", "W=@init.npy", "--save-gradients", ".")
    assert result.exit_code == 0, result.stderr
    assert np.array_equal(np.load(tmp_path / "W.npy"), 2 * np.eye(2))  # d(sum W^2)/dW = 2W
    assert np.array_equal(np.load(tmp_path / "init.npy"), np.eye(2))


def test_same_file_follows_links_and_refuse_names_both(tmp_path) -> None:
    a = write(tmp_path / "a.csv", "x\n")
    os.link(a, tmp_path / "b.csv")
    assert same_file(a, str(tmp_path / "b.csv")) and not same_file(a, str(tmp_path / "c.csv"))
    with pytest.raises(InputError, match=r"is the --points file .*a\.csv: writing it would"):
        refuse_overwriting([("--out", str(tmp_path / "b.csv"))], [("--points", a)])
    refuse_overwriting([("--out", str(tmp_path / "c.csv"))], [("--points", a)])  # (new: fine)


# --- whole or not at all -----------------------------------------------------------------------


@pytest.fixture
def fails_on_the_second_chunk(monkeypatch):
    """The gradient of the second chunk of points raises (as --timeout does, mid-run), after
    the first chunk's rows were written."""
    from gradcalc.engine.run import api

    calls = []
    real = api.gradient_at

    def gradient_at(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise OutOfTime("the request took longer than its time budget (test)")
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "gradient_at", gradient_at)
    return calls


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
@pytest.mark.parametrize("before", [None, "old results\n"])
def test_a_run_that_fails_midway_leaves_no_partial_out_file(
    cli, tmp_path, fails_on_the_second_chunk, suffix, before
) -> None:
    if suffix == "parquet":
        pytest.importorskip("pyarrow")
    rows = "".join(f"{k},{k % 7}\n" for k in range(CHUNK_ROWS + 10))
    points = write(tmp_path / "points.csv", "x,y\n" + rows)
    out = tmp_path / f"out.{suffix}"
    if before is not None:
        out.write_text(before)
    result = cli("grad", "x*y", "--points", points, "--out", str(out), "--no-check")
    assert result.exit_code == 2 and "time budget" in result.stderr, result.stderr
    assert len(fails_on_the_second_chunk) == 2  # (the first chunk was written)
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["points.csv", *[out.name] * (before is not None)]
    )
    if before is not None:
        assert out.read_text() == before


def test_a_complete_run_replaces_the_file_and_keeps_its_permissions(cli, tmp_path) -> None:
    points = write(tmp_path / "p.csv", POINTS)
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    out.chmod(0o600)
    result = cli("grad", "x*y", "--points", points, "--out", str(out), "--no-check")
    assert result.exit_code == 0, result.stderr
    assert out.read_text() == "x,y,value,d/dx,d/dy\n1,2,2,2,1\n3,4,12,4,3\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert sorted(os.listdir(tmp_path)) == ["out.csv", "p.csv"]


def test_a_new_file_has_the_permissions_open_gives(tmp_path) -> None:
    with open(tmp_path / "plain.csv", "w"):
        pass
    new = Replacing(str(tmp_path / "new.csv"))
    new.commit()
    modes = [stat.S_IMODE((tmp_path / n).stat().st_mode) for n in ("plain.csv", "new.csv")]
    assert modes[0] == modes[1]


def test_through_a_symlink_the_file_it_names_is_replaced(tmp_path) -> None:
    target = tmp_path / "real.csv"
    target.write_text("old\n")
    os.symlink(target, tmp_path / "link.csv")
    new = Replacing(str(tmp_path / "link.csv"))
    with new.open_text() as stream:
        stream.write("new\n")
    assert target.read_text() == "old\n"
    new.commit()
    assert (tmp_path / "link.csv").is_symlink() and target.read_text() == "new\n"


def test_discard_leaves_the_target_and_no_temporary(tmp_path) -> None:
    target = tmp_path / "o.csv"
    target.write_text("kept\n")
    new = Replacing(str(target))
    with new.open_text() as stream:
        stream.write("half")
    new.discard()
    assert target.read_text() == "kept\n" and os.listdir(tmp_path) == ["o.csv"]


def test_a_folder_that_cannot_be_written_is_one_line(tmp_path) -> None:
    with pytest.raises(InputError, match=r"cannot write .*no/such/folder/o\.csv: No such file"):
        Replacing(str(tmp_path / "no" / "such" / "folder" / "o.csv"))


def test_a_drawing_is_written_whole(cli, tmp_path) -> None:
    out = tmp_path / "g.svg"
    out.write_text("old")
    result = cli("graph", "x^2", "--at", "x=3", "--out", str(out))
    assert result.exit_code == 0, result.stderr
    assert out.read_text().startswith("<svg") and os.listdir(tmp_path) == ["g.svg"]


def test_a_signal_right_after_the_temporary_file_is_made_leaves_none_behind(
    tmp_path, monkeypatch
) -> None:
    """A SIGTERM that lands just after the hidden file is created, before any code could
    guard it (the slow signal tests hit this window on a busy machine): the file is already
    pending, and the command's exit removes it."""
    from gradcalc.io import written

    real_open = os.open

    def open_then_stopped(*args, **kwargs):
        real_open(*args, **kwargs)
        raise KeyboardInterrupt  # (what the signal handler raises, there and then)

    monkeypatch.setattr(written.os, "open", open_then_stopped)
    with pytest.raises(KeyboardInterrupt):
        Replacing(str(tmp_path / "out.csv"))
    monkeypatch.undo()
    assert [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]  # made, not yet guarded
    written.discard_pending()
    assert os.listdir(tmp_path) == []
