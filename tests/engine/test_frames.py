"""gradcalc.grad at a pandas or a dask DataFrame: the rows' gradients against the derivative
worked out by hand (d(x*exp(y))/dx = exp(y), d/dy = x*exp(y)), on random, large and awkward
values; a dask frame stays lazy and, computed, equals the pandas answer."""

from __future__ import annotations

import numpy as np
import pytest

import gradcalc

pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")


def frame(n: int = 500) -> object:
    rng = np.random.default_rng(11)
    return pd.DataFrame(
        {
            "id": [f"r{i}" for i in range(n)],
            "x": rng.normal(size=n) * 10.0 ** rng.integers(-150, 150, size=n),
            "y": rng.uniform(-300, 300, size=n),
        },
        index=np.arange(n) * 3,
    )


def test_a_pandas_frame_gives_its_rows_gradients() -> None:
    points = frame()
    results = gradcalc.grad("x*exp(y)", at=points)
    assert list(results.columns) == ["x", "y", "value", "d/dx", "d/dy"]
    assert results.index.equals(points.index)
    x, y = points["x"].to_numpy(), points["y"].to_numpy()
    assert np.allclose(results["d/dx"], np.exp(y), rtol=1e-15, atol=0)
    assert np.allclose(results["d/dy"], x * np.exp(y), rtol=1e-15, atol=0, equal_nan=True)


def test_a_dask_frame_gives_a_lazy_frame_equal_to_pandas() -> None:
    points = frame()
    lazy = gradcalc.grad("x*exp(y)", at=dd.from_pandas(points, npartitions=3), wrt=["y"])
    assert isinstance(lazy, dd.DataFrame)
    assert list(lazy.columns) == ["x", "y", "value", "d/dy"]
    assert all(str(t) == "float64" for t in lazy.dtypes)
    computed = lazy.compute(scheduler="synchronous")
    expected = gradcalc.grad("x*exp(y)", at=points, wrt=["y"])
    pd.testing.assert_frame_equal(computed, expected, check_exact=True)


def test_several_targets_are_refused() -> None:
    with pytest.raises(gradcalc.core.errors.InputError, match="one target"):
        gradcalc.grad("a = x^2; b = x^3", at=pd.DataFrame({"x": [1.0]}), of=["a", "b"])


CELLS = [  # a frame's column whose cells the points files' boundary refuses
    pytest.param(["1", "2"], "text, not a real number", id="text-digits"),
    pytest.param(["abc", "1"], "text, not a real number", id="text"),
    pytest.param([True, False], "a boolean (true/false), not a real number", id="bool"),
    pytest.param(
        [1, 2**53 + 1],
        "the integer 9007199254740993 (float64 cannot hold it exactly)",
        id="int-past-2^53",
    ),
    pytest.param([1.0, 1e301], "number out of range: 1e+301", id="out-of-range"),
    pytest.param(pd.array([1, None], dtype="Int64"), "the value is missing (null)", id="Int64-NA"),
    pytest.param(pd.array(["1", None], dtype="string"), "text, not a real number", id="string"),
]


@pytest.mark.parametrize(("cells", "why"), CELLS)
def test_a_cell_is_refused_as_the_cli_refuses_it_in_a_points_file(
    cli, tmp_path, cells, why
) -> None:
    """The same cells in a Parquet points file: the CLI's exit 2 and its message, after the
    file's name, are the API's after ``at``."""
    pytest.importorskip("pyarrow")
    points = pd.DataFrame({"x": cells, "y": [1.0, 2.0]})
    path = tmp_path / "p.parquet"
    points.to_parquet(path)
    result = cli("grad", "x*log(y)", "--points", str(path), "--format", "csv")
    assert result.exit_code == 2
    said = result.stderr.strip().removeprefix(f"gradcalc: {path}, ")
    assert said.startswith("column x, row ") and why in said
    with pytest.raises(gradcalc.core.errors.InputError) as refused:
        gradcalc.grad("x*log(y)", at=points)
    assert str(refused.value) == f"at, {said}"
    lazy = gradcalc.grad("x*log(y)", at=dd.from_pandas(points, npartitions=1))
    with pytest.raises(gradcalc.core.errors.InputError) as refused:
        lazy.compute(scheduler="synchronous")
    assert str(refused.value) == f"at, dask partition 0, {said}"


@pytest.mark.parametrize("lazy", [False, True])
def test_a_variable_named_like_an_output_column_is_refused(lazy) -> None:
    points = pd.DataFrame({"x": [1.0, 2.0], "value": [3.0, 4.0]})
    given = dd.from_pandas(points, npartitions=1) if lazy else points
    with pytest.raises(gradcalc.core.errors.InputError, match="two columns named value"):
        gradcalc.grad("x*value", at=given)  # (refused at once, a dask frame too)


@pytest.mark.parametrize("lazy", [False, True])
def test_a_repeated_column_is_named_as_the_points_file_names_it(lazy) -> None:
    """Two columns x: which one is x? Refused as a points file's header is (it was said
    to clash with gradcalc's own column x, which there is none)."""
    points = pd.DataFrame([[1.0, 2.0, 3.0]], columns=["x", "x", "y"])
    given = dd.from_pandas(points, npartitions=1) if lazy else points
    with pytest.raises(gradcalc.core.errors.InputError) as refused:
        gradcalc.grad("x*y", at=given)
    assert str(refused.value) == "at: the DataFrame's column x is repeated"


def test_a_nan_is_a_bad_row() -> None:
    """(pandas writes a NaN to Parquet as a null: here it is compared with .npy's word.)"""
    with pytest.raises(gradcalc.core.errors.InputError) as refused:
        gradcalc.grad("x*y", at=pd.DataFrame({"x": [1.0, 2.0], "y": [1.0, np.nan]}))
    assert str(refused.value) == "at, column y, row 2: nan is not a finite number"


def test_a_missing_column_is_named_without_command_line_advice() -> None:
    with pytest.raises(gradcalc.core.errors.InputError) as refused:
        gradcalc.grad("x*y", at=pd.DataFrame({"x": [1.0], "label": ["a"]}))
    assert str(refused.value) == "at: the DataFrame has no column y (its columns: x, label)"


def test_not_strict_a_bad_row_is_undefined_and_the_others_answered() -> None:
    """strict=False, as for the API's other values: the bad rows are NaN, every other row
    is d(x*log(y))/dx = log(y), d/dy = x/y; in a dask partition too."""
    x = np.array([1.0, 2.0, 3.0, 4.0])
    y = np.array([2.0, np.nan, 5.0, 7.0])
    points = pd.DataFrame({"x": [1, 2, 2**53 + 1, 4], "y": y})
    for given in (points, dd.from_pandas(points, npartitions=2)):
        results = gradcalc.grad("x*log(y)", at=given, strict=False)
        if isinstance(results, dd.DataFrame):
            results = results.compute(scheduler="synchronous")
        good = np.array([True, False, False, True])
        assert results[~good].isna().all(axis=None)
        assert np.allclose(results["d/dx"][good], np.log(y[good]), rtol=1e-15, atol=0)
        assert np.allclose(results["d/dy"][good], x[good] / y[good], rtol=1e-15, atol=0)
        assert results["x"][good].tolist() == [1.0, 4.0]
