"""The parts of a dataset run on Dask workers give the bytes one process gives: on a
LocalCluster of two worker processes (GRADCALC_CLUSTER), and, slow, on a real ``dask
scheduler`` with two ``dask worker`` processes, one of them killed mid-run (Dask runs its
part again: the output is still the same bytes). The truth is the one-process run, itself
checked against the single-file path and by hand in tests/cli/test_datasets.py."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from gradcalc.cli.partitions import PartJob, compiled, symbolic_state
from gradcalc.engine.evaluate.given import as_points
from gradcalc.engine.run.api import Options, compile_expression, gradient_at
from tests.cli.test_datasets import EXPRESSION, lake

pq = pytest.importorskip("pyarrow.parquet")
distributed = pytest.importorskip("distributed")

MAIN = [sys.executable, "-c", "from gradcalc.cli.app import main; main()"]


def parts_of(folder) -> dict[str, bytes]:
    """Every file of an output directory (hidden ones too) and its bytes."""
    return {name: (folder / name).read_bytes() for name in sorted(os.listdir(folder))}


def test_a_local_cluster_writes_the_bytes_one_process_writes(cli, tmp_path) -> None:
    lake(tmp_path / "lake", sizes=(200, 3, 90, 41), bad=(1, 2))
    with open(tmp_path / "lake" / "004.parquet", "wb") as file:  # log(-1): undefined
        pq.write_table(undefined_point(), file)
    args = ["grad", EXPRESSION, "--points", str(tmp_path / "lake"), "--id", "key"]
    args += ["--skip-bad-rows", "--out"]
    alone = cli(*args, f"{tmp_path / 'alone'}/")
    spread = cli(*args, f"{tmp_path / 'spread'}/", env={"GRADCALC_CLUSTER": "local:2"})
    assert (alone.exit_code, spread.exit_code) == (3, 3), spread.stderr
    assert parts_of(tmp_path / "spread") == parts_of(tmp_path / "alone")
    assert len(parts_of(tmp_path / "alone")) == 5
    said = [spread.stderr.splitlines(), alone.stderr.splitlines()]
    assert said[0][:-1] == said[1][:-1]  # skipped, undefined (then: wrote DIR)
    assert "skipped 1 bad row of 335" in alone.stderr.replace(",", "")
    part = os.path.join(str(tmp_path / "lake"), "001.parquet")
    assert f"in the dataset ({part}, column y, row 3:" in spread.stderr  # (the part named)


def undefined_point():
    import pyarrow as pa

    return pa.table({"key": ["neg"], "x": [2.0], "y": [-1.0]})


def test_a_worker_compiles_once_per_run_with_the_clients_derivatives() -> None:
    graph = compile_expression("x*exp(y)", ["x", "y"])
    gradient_at(graph, as_points({"x": 1.0, "y": 2.0}))  # the client's check: sympy
    state = symbolic_state(graph)
    job = PartJob("run-1", "x*exp(y)", ("x", "y"), None, None, None, False, None, False, False,
                  Options(strict=False, tape=False), state)  # fmt: skip
    first = compiled(job)
    assert (
        compiled(job) is first
        and first.cache[("gradient", 0, ("x", "y"))] is state[("gradient", 0, ("x", "y"))]
    )
    again = PartJob("run-2", *list(vars(job).values())[1:])
    assert compiled(again) is not first


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_a_worker_killed_mid_run_changes_no_byte(tmp_path) -> None:
    lake(tmp_path / "lake", sizes=(60_000,) * 8, seed=3)
    command = [*MAIN, "grad", EXPRESSION, "--points", str(tmp_path / "lake"), "--out"]
    alone = subprocess.run([*command, f"{tmp_path / 'alone'}/"], capture_output=True, timeout=600)
    assert alone.returncode == 0, alone.stderr
    dask = os.path.join(os.path.dirname(sys.executable), "dask")
    address = f"tcp://127.0.0.1:{free_port()}"
    started: list[subprocess.Popen] = []
    try:
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        started.append(subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1",
                                         "--port", address.rsplit(":", 1)[1],
                                         "--no-dashboard"], **quiet))  # fmt: skip
        for _ in range(2):
            started.append(subprocess.Popen([dask, "worker", address, "--nthreads", "1",
                                             "--no-nanny", "--no-dashboard"], **quiet))  # fmt: skip
        with distributed.Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
            pids = client.run(os.getpid)
            run = subprocess.Popen([*command, f"{tmp_path / 'spread'}/", "--cluster", address],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
            started.append(run)
            victim = _busy_worker(client, run)
            os.kill(pids[victim], signal.SIGKILL)
            _, stderr = run.communicate(timeout=600)
            assert run.returncode == 0, stderr
            assert victim not in client.scheduler_info()["workers"]
        assert parts_of(tmp_path / "spread") == parts_of(tmp_path / "alone")
    finally:
        for process in started:
            if process.poll() is None:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()


def _busy_worker(client, run: subprocess.Popen) -> str:
    """The address of a worker computing a part of the run, while the run goes on."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert run.poll() is None, "the run ended before a worker could be killed"
        busy = [w for w, keys in client.processing().items() if keys]
        if busy:
            return busy[0]
        time.sleep(0.05)
    raise AssertionError("no worker started a part within 300 s")


def test_an_unreachable_scheduler_is_exit_2_and_writes_nothing(cli, tmp_path) -> None:
    lake(tmp_path / "lake", sizes=(3,))
    address = f"tcp://127.0.0.1:{free_port()}"
    out = tmp_path / "out"
    done = cli("grad", EXPRESSION, "--points", str(tmp_path / "lake"), "--out", f"{out}/",
               "--cluster", address)  # fmt: skip
    assert done.exit_code == 2 and f"cannot reach the Dask scheduler at {address}" in done.stderr
    assert not out.exists()
