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
