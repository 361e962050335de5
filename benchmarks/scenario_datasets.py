"""Datasets on Dask: a dataset of Parquet files through ``grad --out DIR/`` in one process
and on ``--cluster local:2``, the throughput ratio, the largest process's peak memory, and
Dask's overhead per task (per partition).

Run alone (not part of run.py's full run: it writes and reads a dataset of its own)::

    python benchmarks/scenario_datasets.py --rows 10000000 --parts 8
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

EXPRESSION = "x*log(y) + sin(x*y)"
MAIN = [sys.executable, "-c", "from gradcalc.cli.app import main; main()"]


def write_dataset(folder: str, rows: int, parts: int) -> None:
    """``parts`` Parquet files of random points (x, y), ``rows`` in all."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    for k in range(parts):
        n = rows // parts + (k < rows % parts)
        table = pa.table({"x": rng.normal(size=n), "y": rng.uniform(0.1, 10.0, size=n)})
        pq.write_table(table, os.path.join(folder, f"{k:03d}.parquet"))


def timed_run(folder: str, out: str, cluster: str | None) -> tuple[float, float]:
    """Seconds of one ``grad --out DIR/`` run, and the peak RSS (MB) of its largest process
    (the command in one process; a worker's, or the client's, on a cluster)."""
    command = [*MAIN, "grad", EXPRESSION, "--points", folder, "--out", out + "/"]
    command += ["--cluster", cluster] if cluster else []
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    return seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def task_overhead(tasks: int = 2000) -> float:
    """Milliseconds per task of no work on a LocalCluster of 2 processes (submit to result)."""
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.gather(client.map(abs, range(10)))  # (warm)
        start = time.perf_counter()
        client.gather(client.map(abs, range(tasks), pure=False))
        return (time.perf_counter() - start) / tasks * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--parts", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = os.path.join(scratch, "lake")
        os.makedirs(folder)
        write_dataset(folder, args.rows, args.parts)
        alone, alone_mb = timed_run(folder, os.path.join(scratch, "alone"), None)
        spread, spread_mb = timed_run(folder, os.path.join(scratch, "spread"), "local:2")
    print(f"{args.rows:,} rows in {args.parts} Parquet files, {EXPRESSION}, checked")
    print(f"one process: {alone:.1f} s, {args.rows / alone:,.0f} rows/s, peak {alone_mb:.0f} MB")
    print(f"local:2:     {spread:.1f} s, {args.rows / spread:,.0f} rows/s, "
          f"largest process peak {spread_mb:.0f} MB")  # fmt: skip
    print(f"throughput ratio local:2 / one process: {alone / spread:.2f}")
    print(f"Dask overhead per task (2 local workers): {task_overhead():.2f} ms")


if __name__ == "__main__":
    main()
