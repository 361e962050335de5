"""Tensor values on the command line (gradcalc.cli.tensors): ``grad`` with --at literals, files
and initialisers, --data, --format json, --save-gradients, the layer report and the refusals
(exit 2); ``minimize`` training a tensor program and reporting its layers before and after."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

NETWORK = "h = relu(X@W1 + b1); p = sigmoid(h@W2 + b2); loss = mean((p - y)^2)"
INIT = "W1=randn(4,8),b1=zeros(8),W2=randn(8,1),b2=zeros(1)"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    rng = np.random.default_rng(5)
    X = rng.standard_normal((60, 4))
    y = (X[:, 0] > 0).astype(float)
    path = tmp_path / "data.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,c,d,t", comments="")
    return path


def by_numpy(path: Path, seed: int = 0) -> dict[str, np.ndarray]:
    """The loss and gradients of NETWORK, written out in numpy (independent of gradcalc)."""
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    X, y = table[:, :4], table[:, 4:]
    rng = np.random.default_rng(seed)
    W1, W2 = rng.standard_normal((4, 8)), rng.standard_normal((8, 1))
    z1 = X @ W1
    h = np.maximum(z1, 0)
    p = 1 / (1 + np.exp(-(h @ W2)))
    dz2 = 2 * (p - y) / p.size * p * (1 - p)
    dz1 = dz2 @ W2.T * (z1 > 0)
    return {
        "loss": np.mean((p - y) ** 2),
        "W1": X.T @ dz1,
        "b1": dz1.sum(axis=0),
        "W2": h.T @ dz2,
        "b2": dz2.sum(axis=0),
    }


def test_a_network_on_a_data_set_gives_every_gradient_in_full(cli, data: Path) -> None:
    args = ["grad", NETWORK, "--data", str(data), "--at", INIT, "--wrt", "W1,b1,W2,b2"]
    result = cli(*args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    record = json.loads(result.stdout)
    truth = by_numpy(data)
    assert record["value"] == pytest.approx(truth["loss"], rel=1e-12)
    for name in ("W1", "b1", "W2", "b2"):
        assert np.allclose(record["gradient"][name], truth[name], rtol=1e-9, atol=1e-15)
        assert record["gradient_summary"][name]["norm"] == pytest.approx(
            np.linalg.norm(truth[name]), rel=1e-9
        )
    assert record["inputs"]["X"]["shape"] == [60, 4] and record["inputs"]["y"]["shape"] == [60, 1]
    shapes = [row["shape"] for row in record["tape"]]
    assert [60, 8] in shapes and [] in shapes
    assert [layer["activation"] for layer in record["layers"]["layers"]] == ["relu", "sigmoid"]
    table = cli(*args)
    assert table.exit_code == 0
    for text in ("gradient of loss", "W1", "4×8", "60×8", "layers (60 rows)", "tape"):
        assert text in table.stdout


def test_save_gradients_writes_one_npy_per_source(cli, data: Path, tmp_path: Path) -> None:
    folder = tmp_path / "grads"
    args = ["grad", NETWORK, "--data", str(data), "--at", INIT, "--wrt", "W1,b1,W2,b2"]
    result = cli(*args, "--save-gradients", str(folder), "--format", "json")
    assert result.exit_code == 0, result.stderr
    record = json.loads(result.stdout)
    assert sorted(p.name for p in folder.iterdir()) == ["W1.npy", "W2.npy", "b1.npy", "b2.npy"]
    for name in ("W1", "b1", "W2", "b2"):
        assert np.array_equal(np.load(folder / f"{name}.npy"), np.array(record["gradient"][name]))


def test_the_seed_changes_the_initial_values_and_is_the_same_each_run(cli, data: Path) -> None:
    args = ["grad", NETWORK, "--data", str(data), "--at", INIT, "--format", "json"]
    first = json.loads(cli(*args).stdout)["value"]
    again = json.loads(cli(*args, "--seed", "0").stdout)["value"]
    other = json.loads(cli(*args, "--seed", "1").stdout)["value"]
    assert first == again == pytest.approx(by_numpy(data)["loss"], rel=1e-12)
    assert other == pytest.approx(by_numpy(data, seed=1)["loss"], rel=1e-12) and other != first


def test_literals_and_files_give_the_same_answer(cli, tmp_path: Path) -> None:
    W = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.save(tmp_path / "W.npy", W)
    np.savetxt(tmp_path / "W.csv", W, delimiter=",")
    answers = []
    for value in ("[[1,2],[3,4]]", f"@{tmp_path / 'W.npy'}", f"@{tmp_path / 'W.csv'}"):
        result = cli("--file", "grad", "sum(W@W)", "--at", f"W={value}", "--format", "json")
        assert result.exit_code == 0, result.stderr
        answers.append(json.loads(result.stdout)["gradient"]["W"])
    # d sum(W W) / dW = 1 1ᵀ Wᵀ + Wᵀ 1 1ᵀ
    ones = np.ones((2, 2))
    assert answers[0] == answers[1] == answers[2] == (ones @ W.T + W.T @ ones).tolist()


def test_data_columns_can_be_chosen_and_named(cli, data: Path) -> None:
    program = "loss = mean((A@w - t)^2)"
    args = ["grad", program, "--data", str(data), "--features", "a,b", "--target", "d"]
    result = cli(*args, "--as", "A,t", "--at", "w=[[1],[2]]", "--format", "json")
    assert result.exit_code == 0, result.stderr
    table = np.loadtxt(data, delimiter=",", skiprows=1)
    residual = table[:, :2] @ [[1], [2]] - table[:, 3:4]
    assert json.loads(result.stdout)["value"] == pytest.approx(np.mean(residual**2), rel=1e-12)
    assert list(json.loads(result.stdout)["gradient"]) == ["w"]  # not the data's A and t


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["sum(W)", "--at", "W=[[1,2],[3]]"], "--at W: ragged"),
        (["sum(W)", "--at", "W=[1,x]"], "variable 'x'"),
        (["sum(W)", "--at", "W=randn(100000,100000)"], "limit is 10,000,000"),
        (["sum(W)", "--at", "W=[1]", "--at", "W=[2]"], "one point"),
        (["sum(W)", "--at", "W=@w.npy"], "a value names a file only on the command line under"),
        (["W*2", "--at", "W=[1,2]"], "a gradient needs one number"),
        (["sum(W)", "--at", "W=[1,2]", "--format", "csv"], "no --format csv"),
        (["sum(W)", "--at", "W=[1,2]", "--order", "2"], "first-order"),
        (["x^2", "--at", "x=1", "--seed", "3"], "--seed is for tensor values"),
        (["x^2", "--at", "x=1", "--save-gradients", "g"], "--save-gradients is for tensor"),
        (["sum(W)", "--at", "W=[1,2]", "--features", "a"], "give --data"),
        (["sum(X)", "--data", "nofile.csv"], "cannot read data file"),
        (["sum(W)", "--at", "W=[1,2]", "--out", "g.csv"], "--out, --id and --cluster are"),
        (["sum(W)", "--at", "W=[1,2]", "--id", "W"], "tensor values are one point"),
    ],
)
def test_bad_tensor_input_is_one_line_and_exit_2(cli, args: list[str], says: str) -> None:
    result = cli("grad", *args)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("W=@/dev/null.npy", "cannot read tensor file"),
        ("W=@missing.npy", "cannot read tensor file"),
    ],
)
def test_a_tensor_file_under_file_is_still_checked(cli, value: str, says: str) -> None:
    result = cli("--file", "grad", "sum(W)", "--at", value)
    assert result.exit_code == 2 and says in result.stderr, result.stderr


def test_a_file_is_never_read_from_a_repl_line_or_without_file(cli, tmp_path: Path) -> None:
    """``grad at W=@pw.csv`` in a repl opened the file (its numbers came back as the gradient,
    a system file's first line in the error); ``--at``/``--from`` W=@FILE did too, without
    the operator's --file."""
    secret = tmp_path / "pw.csv"
    secret.write_text("ZZSECRET:x:0:0\n")
    line = f"f(W) = sum(W)\ngrad f at W=@{secret}\n"
    for args, stdin in [
        (["repl"], line),
        (["--file", "repl"], line),
        (["grad", "sum(W)", "--at", f"W=@{secret}"], ""),
        (["minimize", "sum(W^2)", "--from", f"W=@{secret}"], ""),
        (["grad", "--jobs", "-"], f'{{"expr": "sum(W)", "at": {{"W": "@{secret}"}}}}\n'),
    ]:
        result = cli(*args, stdin=stdin)
        assert "ZZSECRET" not in result.stdout + result.stderr, args
        if "--jobs" in args:
            assert json.loads(result.stdout)["exit_code"] == 2
        else:
            assert "a value names a file only on the command line" in result.stderr, args
    assert "Traceback" not in result.stderr


def test_an_undefined_element_exits_3(cli) -> None:
    result = cli("grad", "sum(log(W))", "--at", "W=[1,-1]")
    assert result.exit_code == 3 and "on 1 of 2 elements" in result.stderr


@pytest.mark.parametrize("command", ["explain", "graph", "hessian", "jacobian", "taylor", "plot"])
@pytest.mark.parametrize("value", ["W=[[1,2],[3,4]]", "W=randn(2,2)"])
def test_a_scalar_command_given_a_tensor_says_so_and_names_grad(cli, command, value) -> None:
    """explain and graph said "'[' indexes a vector or matrix ... (tensor values are given
    with --at, not in the expression)", pointing at --at: blaming the user for doing just
    that (randn: "unknown function"). Now: these take scalar values only; grad takes
    tensors -- and grad computes this very point (sum(W@v) = 10 for the literal, by hand)."""
    at = f"{value},v=[1,1]"
    result = cli(command, "sum(W@v)", "--at", at)
    assert result.exit_code == 2 and result.stdout == "", result.stdout + result.stderr
    assert result.stderr == (
        f"gradcalc: {command} takes scalar values only (x=3), and {value} is a tensor: "
        "for tensor values, use gradcalc grad\n"
    )
    grad = cli("grad", "sum(W@v)", "--at", at, "--format", "json", "--no-check")
    assert grad.exit_code == 0
    if value.startswith("W=[["):
        assert json.loads(grad.stdout)["value"] == 10.0  # 1+2+3+4


def test_check_with_a_tensor_value_names_grad(cli) -> None:
    result = cli("check", "sum(W@v)", "--at", "W=[[1,2],[3,4]],v=[1,1]", "--expect", "1")
    assert result.exit_code == 2 and "check takes scalar values only" in result.stderr


def test_scalar_points_are_untouched(cli) -> None:
    result = cli("grad", "3*w1^2 + 2*w1*w2", "--at", "w1=5,w2=3", "--format", "plain")
    assert result.exit_code == 0 and result.stdout.split() == ["36", "10"]


TRAIN_START = "W1=randn(3,4),b1=[0,-30,0,0],W2=randn(4,1),b2=zeros(1)"


def data_file(tmp_path: Path) -> str:
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 3))
    path = tmp_path / "d.csv"
    table = np.column_stack([X, X[:, 0] > 0])
    np.savetxt(path, table, delimiter=",", header="a,b,c,t", comments="")
    return str(path)


def test_training_prints_both_reports_and_lowers_the_loss(cli, tmp_path: Path) -> None:
    args = ["minimize", NETWORK, "--data", data_file(tmp_path), "--from", TRAIN_START]
    result = cli(*args, "--steps", "40", "--lr", "0.5")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "before training:" in out and "after training:" in out
    assert out.count("unit 1 of layer 1 (relu) is dead on 100% of 50 rows") == 2
    record = json.loads(cli(*args, "--steps", "40", "--lr", "0.5", "--format", "json").stdout)
    assert record["steps"] == 40 and record["loss_after"] < record["loss_before"]
    assert np.array(record["parameters"]["W1"]).shape == (3, 4)
    assert record["parameters"]["b1"][1] == -30
    dead = [(u["layer"], u["unit"]) for u in record["layers_after"]["units"]]
    assert dead == [(1, 1)]


def test_a_diverging_run_exits_1_and_scalar_minimize_is_untouched(cli) -> None:
    result = cli("minimize", "loss = sum(exp(w*w))", "--from", "w=[1,2]", "--lr", "100")
    assert result.exit_code == 1 and "diverged" in result.stdout
    scalar = cli("minimize", "(x-1)^2", "--from", "x=0", "--lr", "0.5", "--format", "plain")
    assert scalar.exit_code == 0 and scalar.stdout.strip() == "1"


def test_tensor_options_are_refused_where_they_do_not_apply(cli) -> None:
    result = cli("minimize", "(x-1)^2", "--from", "x=0", "--dead-share", "0.5")
    assert result.exit_code == 2 and "--dead-share is for tensor values" in result.stderr
    result = cli("minimize", "sum(w*w)", "--from", "w=[1,2]", "--method", "bfgs")
    assert result.exit_code == 2 and "trains with gd, momentum, adam" in result.stderr


@pytest.mark.parametrize("unit", [1, 5])
def test_tensor_json_carries_diagnostics_as_every_gradient_does(cli, data: Path, unit: int) -> None:
    """``"diagnostics": {"healthy", "findings"}``, as README promises of every JSON object:
    a unit whose bias is -30 is dead on every row (numpy: X@W1[:, j] + b1[j] <= 0), and
    says so; with zero biases the diagnostics agree with the layer report."""
    bias = ["0"] * 8
    bias[unit] = "-30"
    start = INIT.replace("b1=zeros(8)", f"b1=[{','.join(bias)}]")
    args = ["grad", NETWORK, "--data", str(data), "--wrt", "W1,b1,W2,b2", "--format", "json"]
    record = json.loads(cli(*args, "--at", start).stdout)
    table = np.loadtxt(data, delimiter=",", skiprows=1)
    W1 = np.random.default_rng(0).standard_normal((4, 8))
    dead = {j for j in range(8) if np.all(table[:, :4] @ W1[:, j] + float(bias[j]) <= 0)}
    assert unit in dead
    found = record["diagnostics"]
    assert found["healthy"] is False
    said = {f["message"].split()[1] for f in found["findings"] if f["kind"] == "dead"}
    assert said == {str(j) for j in dead}
    healthy = json.loads(cli(*args, "--at", INIT).stdout)
    assert set(healthy["diagnostics"]) == {"healthy", "findings"}
    assert healthy["diagnostics"]["healthy"] == healthy["layers"]["healthy"]
