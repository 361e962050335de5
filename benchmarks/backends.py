"""The batch expressions and every tool that computes their gradient over many points.

Each expression is written once, as text in Python syntax. gradcalc parses the text; the
numpy floor goes through sympy's ``lambdify``; the peers (PyTorch, JAX, HIPS autograd,
TensorFlow) evaluate the same text as a Python lambda over their own ``sin``, ``exp``, ...
(the texts are this module's constants, never user input). So no tool can compute a
different function from the others by a slip in transcription.

A backend's ``prepare(text, names, arrays)`` does the untimed set-up (imports, conversion
of the inputs, tracing and compiling) and returns a :class:`Prepared` whose ``call()``
computes the gradient with respect to every name at every point and returns it as numpy
arrays (the floor returns the value alone). Each peer runs in its default mode (eager) and
in its best one (``best``: JAX jit, PyTorch ``torch.compile``, TensorFlow with XLA); gradcalc
as a user first calls it (``grad()``, everything per call) and compiled once.
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

SEED = 20240607
LOW, HIGH = -2.0, 2.0

FIFTY_TERMS = " + ".join(f"sin({k}*x+y)*cos(x-{k}*y)" for k in range(1, 51))

EXPRESSIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "a": ("3*w1**2+2*w1*w2", ("w1", "w2")),
    "b": ("sin(x)*exp(-x**2/2)+log(1+y**2)*tanh(x*y)", ("x", "y")),
    "c": (FIFTY_TERMS, ("x", "y")),
    "d": ("sqrt(x**2+y**2+z**2) + 1/(1+exp(-(x*y-z)))", ("x", "y", "z")),
}

FUNCTIONS = ("sin", "cos", "exp", "log", "tanh", "sqrt")

Gradient = dict[str, np.ndarray]


@dataclass
class Prepared:
    """A ready-to-time computation: ``call()`` returns the gradient (or the floor's value);
    ``compile_seconds`` is the separate set-up: tracing and compiling (jit peers), parsing
    and recording (gradcalc compiled once); ``setting``, the environment variables the
    calls run under (set around all of them by :meth:`running`, not by each call: setting
    one costs 4 µs, which the figure of a call at 10^3 points should not carry)."""

    call: Callable[[], Gradient]
    compile_seconds: float | None = None
    setting: Mapping[str, str] = field(default_factory=dict)

    @contextmanager
    def running(self) -> Iterator[None]:
        """The block in which to call ``call()``: :attr:`setting` in force, then restored."""
        before = {name: os.environ.get(name) for name in self.setting}
        os.environ.update(self.setting)
        try:
            yield
        finally:
            for name, value in before.items():
                if value is None:
                    del os.environ[name]
                else:
                    os.environ[name] = value


@dataclass(frozen=True)
class Backend:
    """A tool of the batch scenario: its display name, the module it needs, its set-up."""

    key: str
    name: str
    module: str
    prepare: Callable[[str, Sequence[str], Mapping[str, np.ndarray]], Prepared]
    is_floor: bool = False
    #: the tool's best mode (a peer's figures for "no slower than the best peer")
    best: bool = False
    #: left out of ``--quick`` (compiling takes minutes, or an eager mode no target reads)
    quick: bool = True

    def available(self) -> bool:
        """Whether the module it needs can be imported here."""
        return importlib.util.find_spec(self.module) is not None


def make_points(names: Sequence[str], count: int, seed: int = SEED) -> dict[str, np.ndarray]:
    """``count`` random float64 points, uniform in [LOW, HIGH), the same for every tool."""
    rng = np.random.default_rng(seed)
    return {name: rng.uniform(LOW, HIGH, count) for name in names}


def as_function(text: str, names: Sequence[str], namespace: Mapping[str, object]) -> Callable:
    """The expression text as a Python function of ``names`` over ``namespace``'s functions."""
    return eval(f"lambda {', '.join(names)}: {text}", dict(namespace))  # constant texts only


def namespace_of(module: object) -> dict[str, object]:
    """``sin``, ``exp``, ... taken from a numpy-like module."""
    return {name: getattr(module, name) for name in FUNCTIONS}


# --- gradcalc: the ONE adapter to its public in-process batch path -------------------


def gradcalc_options(**chosen: object) -> object:
    """gradcalc's ``Options`` with ``chosen`` fields, and ``tape=False`` (keep no tape rows
    for display: the batch path) where this version of gradcalc has that field."""
    from dataclasses import fields

    from gradcalc.engine.run.api import Options

    if "tape" in {f.name for f in fields(Options)}:
        chosen.setdefault("tape", False)
    return Options(**chosen)


def prepare_gradcalc_api(
    text: str, names: Sequence[str], arrays: Mapping[str, np.ndarray]
) -> Prepared:
    """What a user calls first: ``gradcalc.grad(text, at=arrays, check=False)`` with every
    default, parsing, compiling and recording included in every call."""
    import gradcalc

    def call() -> Gradient:
        result = gradcalc.grad(text, at=dict(arrays), wrt=list(names), check=False)
        return dict(result.gradient)

    return Prepared(call)


def prepare_gradcalc(
    text: str, names: Sequence[str], arrays: Mapping[str, np.ndarray], kernels: str = "numpy"
) -> Prepared:
    """gradcalc compiled once, as the peers' jit is: set-up = ``compile_expression``, the
    recording of the forward-and-reverse program and compiling its kernels (reported as its
    compile time); each call = ``gradient_at`` on a
    :class:`~gradcalc.engine.evaluate.points.Points` of 1-D float64 arrays, symbolic check off, with
    the replay's ``kernels`` (``native``, ``numpy`` or ``numexpr``: ``GRADCALC_KERNELS``
    while the calls run)."""
    from gradcalc.engine.evaluate.points import Points
    from gradcalc.engine.run.api import compile_expression, gradient_at

    start = time.perf_counter()
    graph = compile_expression(text, names)
    try:
        from gradcalc.engine.compile import fused, native
        from gradcalc.engine.compile.sweep import sweep_for
    except ImportError:  # an older gradcalc records on the first call
        pass
    else:
        sweep = sweep_for(graph, tuple(names))
        if kernels == "numexpr":
            fused.kernels_of(sweep)  # numexpr compiles its programs
        elif kernels == "native":
            native.kernel_of(sweep)  # LLVM compiles the program
    set_up = time.perf_counter() - start
    points = Points(tuple(names), dict(arrays), None)
    options = gradcalc_options(check=False)

    def call() -> Gradient:
        return dict(gradient_at(graph, points, list(names), options)[0].gradient)

    return Prepared(call, set_up, {"GRADCALC_KERNELS": kernels})


def prepare_gradcalc_native(
    text: str, names: Sequence[str], arrays: Mapping[str, np.ndarray]
) -> Prepared:
    """:func:`prepare_gradcalc` with the native kernels (``GRADCALC_KERNELS=native``: at every
    size, 10^3 included, where the default takes them from 20,000 points)."""
    return prepare_gradcalc(text, names, arrays, kernels="native")


def prepare_gradcalc_numexpr(
    text: str, names: Sequence[str], arrays: Mapping[str, np.ndarray]
) -> Prepared:
    """:func:`prepare_gradcalc` with the fused numexpr kernels (``GRADCALC_KERNELS=numexpr``)."""
    return prepare_gradcalc(text, names, arrays, kernels="numexpr")


# --- the floor and the peers ----------------------------------------------------------


def prepare_floor(text: str, names: Sequence[str], arrays: Mapping[str, np.ndarray]) -> Prepared:
    """numpy evaluating the expression alone (no gradient): sympy ``lambdify(..., "numpy")``."""
    import sympy as sp
    from sympy.parsing.sympy_parser import parse_expr

    symbols = sp.symbols(names)
    expr = parse_expr(text, local_dict=dict(zip(names, symbols)))
    function = sp.lambdify(symbols, expr, "numpy")
    args = [arrays[name] for name in names]
    return Prepared(lambda: {"value": function(*args)})


def _torch_leaves(names: Sequence[str], arrays: Mapping[str, np.ndarray]) -> list:
    import torch

    if os.environ.get("OMP_NUM_THREADS"):
        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    return [torch.from_numpy(arrays[name]).requires_grad_() for name in names]


def prepare_torch(text: str, names: Sequence[str], arrays: Mapping[str, np.ndarray]) -> Prepared:
    """PyTorch eager (its default): leaves that require grad, ``torch.autograd.grad`` with a
    ones seed."""
    import torch

    function = as_function(text, names, namespace_of(torch))
    leaves = _torch_leaves(names, arrays)

    def call() -> Gradient:
        out = function(*leaves)
        grads = torch.autograd.grad(out, leaves, grad_outputs=torch.ones_like(out))
        return {name: g.numpy() for name, g in zip(names, grads)}

    return Prepared(call)


_TORCH_COMPILED: dict[str, Callable] = {}


def prepare_torch_compiled(
    text: str, names: Sequence[str], arrays: Mapping[str, np.ndarray]
) -> Prepared:
    """PyTorch's best mode: the function under ``torch.compile`` (inductor, C++ kernels for
    the CPU; forward and backward graphs compiled by AOTAutograd), ``dynamic=True`` so one
    compilation serves every batch size; the first call at each size is the set-up (it
    compiles at the first size)."""
    import torch

    if text not in _TORCH_COMPILED:  # one compilation per expression, for every size
        compiled = torch.compile(as_function(text, names, namespace_of(torch)), dynamic=True)
        _TORCH_COMPILED[text] = compiled
    function = _TORCH_COMPILED[text]
    leaves = _torch_leaves(names, arrays)

    def call() -> Gradient:
        out = function(*leaves)
        grads = torch.autograd.grad(out, leaves, grad_outputs=torch.ones_like(out))
        return {name: g.detach().numpy() for name, g in zip(names, grads)}

    start = time.perf_counter()
    call()
    return Prepared(call, time.perf_counter() - start)


def _jax_gradient(text: str, names: Sequence[str]) -> Callable:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    function = as_function(text, names, namespace_of(jnp))
    every = tuple(range(len(names)))
    return jax.grad(lambda *a: jnp.sum(function(*a)), argnums=every)


def prepare_jax(text: str, names: Sequence[str], arrays: Mapping[str, np.ndarray]) -> Prepared:
    """JAX's best mode: ``jit(grad(sum of f))`` compiled ahead of the timing (its compile
    time is the set-up); each call blocks until the result is ready."""
    import jax

    gradient = jax.jit(_jax_gradient(text, names))
    args = [jax.device_put(arrays[name]) for name in names]
    start = time.perf_counter()
    compiled = gradient.lower(*args).compile()
    compile_seconds = time.perf_counter() - start

    def call() -> Gradient:
        grads = compiled(*args)
        return {name: np.asarray(g.block_until_ready()) for name, g in zip(names, grads)}

    return Prepared(call, compile_seconds)


def prepare_jax_eager(
    text: str, names: Sequence[str], arrays: Mapping[str, np.ndarray]
) -> Prepared:
    """JAX without ``jit``: ``grad(sum of f)`` dispatched op by op (what one gets first)."""
    import jax

    gradient = _jax_gradient(text, names)
    args = [jax.device_put(arrays[name]) for name in names]

    def call() -> Gradient:
        grads = gradient(*args)
        return {name: np.asarray(g.block_until_ready()) for name, g in zip(names, grads)}

    return Prepared(call)


def prepare_autograd(text: str, names: Sequence[str], arrays: Mapping[str, np.ndarray]) -> Prepared:
    """HIPS autograd: ``grad`` of the sum over points, all inputs in one pass."""
    import autograd
    import autograd.numpy as anp

    function = as_function(text, names, namespace_of(anp))
    gradient = autograd.grad(lambda args: anp.sum(function(*args)))
    args = [arrays[name] for name in names]
    return Prepared(lambda: dict(zip(names, gradient(args))))


def _tensorflow(text: str, names: Sequence[str], arrays: Mapping[str, np.ndarray]):
    import tensorflow as tf

    namespace = {name: getattr(tf.math, name) for name in FUNCTIONS}
    function = as_function(text, names, namespace)

    def gradient(args):
        with tf.GradientTape() as tape:
            tape.watch(args)
            out = function(*args)
        return tape.gradient(out, args)

    return gradient, [tf.constant(arrays[name]) for name in names]


def prepare_tensorflow_eager(
    text: str, names: Sequence[str], arrays: Mapping[str, np.ndarray]
) -> Prepared:
    """TensorFlow eager (its default): a ``GradientTape`` run op by op."""
    gradient, args = _tensorflow(text, names, arrays)
    return Prepared(lambda: {name: g.numpy() for name, g in zip(names, gradient(args))})


def prepare_tensorflow(
    text: str,
    names: Sequence[str],
    arrays: Mapping[str, np.ndarray],
    jit_compile: bool = False,
) -> Prepared:
    """TensorFlow: the ``GradientTape`` inside ``tf.function`` (a graph), traced -- and with
    ``jit_compile`` compiled by XLA -- ahead of the timing (its set-up)."""
    import tensorflow as tf

    gradient, args = _tensorflow(text, names, arrays)
    graph = tf.function(gradient, jit_compile=jit_compile)
    start = time.perf_counter()
    graph(args)  # traces (and with XLA compiles) for these shapes
    compile_seconds = time.perf_counter() - start

    def call() -> Gradient:
        return {name: g.numpy() for name, g in zip(names, graph(args))}

    return Prepared(call, compile_seconds)


def prepare_tensorflow_xla(
    text: str, names: Sequence[str], arrays: Mapping[str, np.ndarray]
) -> Prepared:
    """TensorFlow's best mode on a CPU: ``tf.function(jit_compile=True)`` (XLA)."""
    return prepare_tensorflow(text, names, arrays, jit_compile=True)


BACKENDS: tuple[Backend, ...] = (
    Backend("floor", "floor: numpy forward (lambdify)", "sympy", prepare_floor, is_floor=True),
    Backend("gradcalc-api", "gradcalc: grad(), every default", "gradcalc", prepare_gradcalc_api),
    Backend(
        "gradcalc",
        "gradcalc: compiled once, native kernels",
        "llvmlite",
        prepare_gradcalc_native,
        best=True,
    ),
    Backend("gradcalc-numpy", "gradcalc: compiled once, numpy steps", "gradcalc", prepare_gradcalc),
    Backend(
        "gradcalc-numexpr",
        "gradcalc: compiled once, numexpr kernels",
        "numexpr",
        prepare_gradcalc_numexpr,
    ),
    Backend("torch", "PyTorch eager", "torch", prepare_torch),
    Backend(
        "torch-compile",
        "PyTorch torch.compile",
        "torch",
        prepare_torch_compiled,
        best=True,
        quick=False,
    ),
    Backend("jax-eager", "JAX grad, no jit", "jax", prepare_jax_eager, quick=False),
    Backend("jax", "JAX jit", "jax", prepare_jax, best=True),
    Backend("autograd", "HIPS autograd", "autograd", prepare_autograd, best=True),
    Backend(
        "tensorflow-eager",
        "TensorFlow eager",
        "tensorflow",
        prepare_tensorflow_eager,
        quick=False,
    ),
    Backend("tensorflow", "TensorFlow tf.function", "tensorflow", prepare_tensorflow),
    Backend(
        "tensorflow-xla",
        "TensorFlow tf.function(jit_compile=True)",
        "tensorflow",
        prepare_tensorflow_xla,
        best=True,
        quick=False,
    ),
)


def backend(key: str) -> Backend:
    """The backend called ``key``."""
    return next(b for b in BACKENDS if b.key == key)
