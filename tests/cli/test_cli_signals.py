"""A real ``gradcalc`` process stopped by SIGTERM (``kill``, ``timeout``, ``docker stop``) or
SIGHUP (its terminal closed) while it writes ``--out``: it unwinds as after Ctrl-C -- no hidden
temporary file is left, a file it would replace is untouched -- and exits with the shell's
status for the signal, 128 + its number (docs/exit-codes.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # real gradcalc processes, a million rows

MAIN = [sys.executable, "-c", "from gradcalc.cli.app import main; main()"]
SIGNALS = [signal.SIGTERM, signal.SIGHUP]


def stopped_while_writing(args: list[str], folder, signum: int) -> subprocess.Popen:
    """``gradcalc ARGS`` sent ``signum`` once a hidden temporary file has appeared in
    ``folder`` (it has started writing; no clock decides when), then waited for."""
    process = subprocess.Popen(
        [*MAIN, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    while process.poll() is None and not any(".tmp" in n for n in os.listdir(folder)):
        time.sleep(0.01)
    assert process.poll() is None, "the run ended before it could be stopped"
    process.send_signal(signum)
    process.wait(timeout=120)
    return process


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_stopped_run_leaves_no_temporary_file_and_the_old_one_untouched(tmp_path, signum) -> None:
    points = tmp_path / "p.csv"
    points.write_text("x,y\n" + "".join(f"{k},{k % 7 + 1}\n" for k in range(1_000_000)))
    results = tmp_path / "results"
    results.mkdir()
    (results / "out.csv").write_text("old\n")
    args = ["grad", "x*log(y) + sin(x*y)", "--points", str(points), "--no-check"]
    process = stopped_while_writing([*args, "--out", str(results / "out.csv")], results, signum)
    assert process.returncode == 128 + signum, process.stderr.read()
    assert os.listdir(results) == ["out.csv"]
    assert (results / "out.csv").read_text() == "old\n"


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_stopped_dataset_run_leaves_no_part_nor_temporary_file(tmp_path, signum) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    lake = tmp_path / "lake"
    lake.mkdir()
    rng = np.random.default_rng(5)
    for k in range(6):
        x, y = rng.normal(size=300_000), rng.uniform(1, 9, size=300_000)
        pq.write_table(pa.table({"x": x, "y": y}), lake / f"{k:03d}.parquet")
    results = tmp_path / "results"
    results.mkdir()
    (results / "_kept").write_text("old\n")  # (a directory that is there stays, as it was)
    args = ["grad", "x*log(y) + sin(x*y)", "--points", str(lake), "--no-check"]
    process = stopped_while_writing([*args, "--out", f"{results}/"], results, signum)
    assert process.returncode == 128 + signum, process.stderr.read()
    assert os.listdir(results) == ["_kept"]
    assert (results / "_kept").read_text() == "old\n"
