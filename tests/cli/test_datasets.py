"""``grad --points DATASET`` in one process: a directory or a glob of Parquet files gives the
rows one file with the same rows gives (the single-file path is the truth, and the values are
checked against the derivative worked out by hand: d(x*log(y))/dx = log(y), d/dy = x/y);
``--out DIR/`` writes one part per input part, and a failed run leaves no part."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

EXPRESSION = "x*log(y)"


def lake(folder, sizes=(300, 1, 120), seed=7, bad: tuple[int, int] | None = None) -> list[dict]:
    """Parts of random points (row groups of 50 rows); ``bad``: (part, row) holds a NaN."""
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    parts = []
    for k, n in enumerate(sizes):
        data = {
            "key": [f"{k}/{i}" for i in range(n)],
            "x": rng.normal(size=n) * 10.0 ** rng.integers(-30, 30, size=n),
            "y": rng.uniform(1e-9, 1e9, size=n),
        }
        if bad is not None and bad[0] == k:
            data["y"][bad[1]] = np.nan
        pq.write_table(pa.table(data), os.path.join(folder, f"{k:03d}.parquet"), row_group_size=50)
        parts.append(data)
    return parts


def one_file(tmp_path, parts: list[dict]) -> str:
    path = str(tmp_path / "all.parquet")
    joined = {c: np.concatenate([np.asarray(p[c]) for p in parts]) for c in parts[0]}
    pq.write_table(pa.table(joined), path)
    return path


def test_a_dataset_gives_the_rows_of_one_file_with_its_rows(cli, tmp_path) -> None:
    parts = lake(tmp_path / "lake")
    single = cli("grad", EXPRESSION, "--points", one_file(tmp_path, parts), "--id", "key",
                 "--out", str(tmp_path / "one.parquet"))  # fmt: skip
    assert single.exit_code == 0, single.stderr
    for points in (str(tmp_path / "lake"), str(tmp_path / "lake" / "*.parquet")):
        done = cli("grad", EXPRESSION, "--points", points, "--id", "key",
                   "--out", str(tmp_path / "many.parquet"))  # fmt: skip
        assert done.exit_code == 0, done.stderr
        table = pq.read_table(tmp_path / "many.parquet")
        assert table.equals(pq.read_table(tmp_path / "one.parquet"))
    x, y = table.column("x").to_numpy(), table.column("y").to_numpy()
    assert np.allclose(table.column("d/dx").to_numpy(), np.log(y), rtol=1e-15, atol=0)
    assert np.allclose(table.column("d/dy").to_numpy(), x / y, rtol=1e-15, atol=0)


def test_out_dir_writes_one_part_per_input_part_with_the_same_columns(cli, tmp_path) -> None:
    parts = lake(tmp_path / "lake")
    cli("grad", EXPRESSION, "--points", one_file(tmp_path, parts), "--id", "key",
        "--out", str(tmp_path / "one.parquet"))  # fmt: skip
    done = cli("grad", EXPRESSION, "--points", str(tmp_path / "lake"), "--id", "key",
               "--out", str(tmp_path / "out") + "/")  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert f"(3 parts, {sum(len(p['x']) for p in parts):,} rows)" in done.stderr
    names = sorted(os.listdir(tmp_path / "out"))
    assert names == ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    tables = [pq.read_table(tmp_path / "out" / n) for n in names]
    assert [t.num_rows for t in tables] == [len(p["x"]) for p in parts]
    assert pa.concat_tables(tables).equals(pq.read_table(tmp_path / "one.parquet"))


def test_a_bad_row_fails_the_run_and_leaves_no_part(cli, tmp_path) -> None:
    lake(tmp_path / "lake", bad=(2, 75))
    out = tmp_path / "out"
    done = cli("grad", EXPRESSION, "--points", str(tmp_path / "lake"), "--out", f"{out}/")
    assert done.exit_code == 2
    assert "002.parquet" in done.stderr and "row 76" in done.stderr
    assert not out.exists()  # (made by the run, removed with its temporary files)
    out.mkdir()
    done = cli("grad", EXPRESSION, "--points", str(tmp_path / "lake"), "--out", str(out))
    assert done.exit_code == 2 and os.listdir(out) == []  # (not even a hidden file)


def test_one_part_of_one_row_is_said_in_the_singular(cli, tmp_path) -> None:
    lake(tmp_path / "lake", sizes=(1,))
    done = cli("grad", EXPRESSION, "--points", str(tmp_path / "lake"),
               "--out", str(tmp_path / "out") + "/")  # fmt: skip
    assert done.exit_code == 0 and f"wrote {tmp_path / 'out'}/ (1 part, 1 row)" in done.stderr


def test_bad_rows_and_undefined_points_are_counted_over_the_parts(cli, tmp_path) -> None:
    parts = lake(tmp_path / "lake", bad=(0, 10))
    pq.write_table(
        pa.table({"key": ["z"], "x": [1.0], "y": [0.0]}), tmp_path / "lake" / "9.parquet"
    )
    done = cli("grad", EXPRESSION, "--points", str(tmp_path / "lake"), "--skip-bad-rows",
               "--out", str(tmp_path / "out") + "/")  # fmt: skip
    assert done.exit_code == 3, done.stderr  # log(0): undefined, as in one file
    rows = sum(len(p["x"]) for p in parts) + 1
    first = os.path.join(str(tmp_path / "lake"), "000.parquet")  # (rows counted per part)
    said = f"skipped 1 bad row of {rows:,} in the dataset ({first}, column y, row 11:"
    assert said in done.stderr
    assert f"undefined at 1 of {rows - 1:,} points" in done.stderr
    for out in (["--format", "csv"], ["--out", str(tmp_path / "all.csv")]):  # one output
        done = cli("grad", EXPRESSION, "--points", str(tmp_path / "lake"), "--skip-bad-rows", *out)
        assert done.exit_code == 3 and said in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--cluster", "local:2"], "give --out DIR/"),
        (["--out", "o/", "--order", "2"], "drop --order"),
        (["--out", "o/", "--format", "json"], "drop --format json"),
        (["--out", "o/", "--cluster", "local:0"], "N from 1 to 64"),
        (["--out", "o/", "--cluster", "8786"], "tcp://HOST:8786"),
    ],
)
def test_what_a_dataset_run_does_not_do_is_refused(cli, tmp_path, monkeypatch, extra, message):
    lake(tmp_path / "lake", sizes=(3,))
    monkeypatch.chdir(tmp_path)
    done = cli("grad", EXPRESSION, "--points", "lake", *extra)
    assert done.exit_code == 2 and message in done.stderr


def test_dask_is_imported_only_for_a_cluster(tmp_path) -> None:
    lake(tmp_path / "lake", sizes=(3,))
    probe = (
        "import sys, atexit\n"
        "atexit.register(lambda: print('dask' in sys.modules, file=sys.stderr))\n"
        "sys.argv = ['gradcalc', *sys.argv[1:]]\n"
        "from gradcalc.cli.app import main; main()\n"
    )

    def imports_dask(*args: str) -> str:
        done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True,
                              text=True, cwd=tmp_path, timeout=120)  # fmt: skip
        return done.stderr.strip().splitlines()[-1]

    assert imports_dask("--help") == "False"
    assert imports_dask("grad", "x^2", "--at", "x=3") == "False"
    assert imports_dask("grad", EXPRESSION, "--points", "lake", "--out", "o/") == "False"


def test_without_the_extra_cluster_names_it(tmp_path) -> None:
    lake(tmp_path / "lake", sizes=(3,))
    blocked = (
        "import sys\n"
        "sys.modules['distributed'] = None  # as if not installed: importing it fails\n"
        "sys.argv = ['gradcalc', *sys.argv[1:]]\n"
        "from gradcalc.cli.app import main; main()\n"
    )
    args = ["grad", EXPRESSION, "--points", "lake", "--out", "o/", "--cluster", "local"]
    done = subprocess.run([sys.executable, "-c", blocked, *args], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120)  # fmt: skip
    assert done.returncode == 2
    assert "pip install 'gradcalc[dask]'" in done.stderr
