"""Compile a replayed program (:mod:`gradcalc.engine.replay`) into one native loop, with LLVM.

The replay runs one numpy call per recorded step: every intermediate value of the forward
and the backward pass travels through memory, and numpy's sines and exponentials are the C
library's, one number at a time. Here the whole program -- forward and backward -- becomes
one machine-code loop over the points, built with llvmlite (LLVM's code generator, as numba
uses it). Each pass of the loop computes four points at once in the CPU's vector registers
(two without AVX2), keeping every intermediate value there; on Linux the functions come
from glibc's vector maths library (libmvec: ``_ZGVdN4v_sin`` computes four sines in one
call), elsewhere from the C library one lane at a time.

What the loop writes: the outputs (values, partial derivatives), the slopes checked for
saturation, the inputs of every op whose domain rule must be checked (the replay then runs
the op's own rule on them, with numpy), and one flag per point that is set where a value the
replay checks for NaN or infinity is not finite. So flagged points, findings and fallbacks
are the replay's.

Nothing of the user's text reaches LLVM: the module is built as objects (no source text is
parsed from anything but what :mod:`llvmlite.ir` prints of them), slots are numbered, and a
constant is an IEEE double written in hexadecimal. Ops outside :data:`FUNCTIONS`,
:data:`ARITHMETIC` and :data:`COMPOSITE`, parameters, or constants that are arrays leave
the program to the step-by-step replay.

Arithmetic (+, -, *, /, negation, square, square root, absolute value) is the same IEEE
operation numpy performs (no fused multiply-add, no reassociation), bit for bit; the vector
functions agree with the C library's to a few units in the last place (glibc documents at
most 4), so results agree with the tape's to a few ulps, as amplified by the expression.

>>> import numpy as np
>>> from gradcalc.engine.sweep import record_sweep
>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> sweep = record_sweep(lower(parse_program("3*w1**2 + 2*w1*w2")), ("w1", "w2"))
>>> kernel = compile_sweep(sweep)
>>> slots = [np.array([5.0, 1.0, 2.0]), np.array([3.0, 0.0, 1.0])] + [None] * (sweep.size - 2)
>>> outputs = run(kernel, slots, 3, {}, lambda mask: None)
>>> slots[sweep.gradients[0]["w1"]], slots[sweep.gradients[0]["w2"]]
(array([36.,  6., 14.]), array([10.,  2.,  4.]))
"""

from __future__ import annotations

import ctypes
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from gradcalc.engine.sweep import Step, Sweep

#: numpy ufuncs that are one IEEE instruction (LLVM's name for it).
ARITHMETIC: dict[str, str] = {
    "add": "fadd",
    "subtract": "fsub",
    "multiply": "fmul",
    "divide": "fdiv",
}

#: numpy ufuncs computed by a C maths function (its name): one argument, or two (pow, atan2).
FUNCTIONS: dict[str, str] = {
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "exp": "exp",
    "expm1": "expm1",
    "exp2": "exp2",
    "log": "log",
    "log1p": "log1p",
    "log2": "log2",
    "log10": "log10",
    "sinh": "sinh",
    "cosh": "cosh",
    "tanh": "tanh",
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "cbrt": "cbrt",
    "power": "pow",
    "arctan2": "atan2",
}

#: Ops without a ufunc whose numpy forward is ``1 / f(x)`` (f from :data:`FUNCTIONS`).
COMPOSITE: dict[str, str] = {"sech": "cosh", "sec": "cos", "csc": "sin", "cot": "tan"}

#: Compiled kernels kept by the program's structure (a graph compiled again from the same
#: text, as ``grad()`` does on every call, finds its kernel here).
CACHED = 64

_lock = threading.Lock()
_kernels: OrderedDict[Hashable, Kernel | None] = OrderedDict()


@dataclass
class Kernel:
    """A compiled program: ``function(n, inputs, outputs, flags)`` computes ``n`` points (a
    multiple of ``lanes``) from the arrays of the ``inputs`` slots into those of the
    ``outputs`` slots, setting ``flags[i]`` where a checked value is not finite (when
    ``flagging``); ``checks`` are the steps whose domain rule the caller runs afterwards."""

    function: Callable[..., None]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    checks: tuple[Step, ...]
    flagging: bool
    lanes: int
    engine: Any = field(repr=False)  # keeps the machine code alive


@functools.cache
def available() -> bool:
    """Whether llvmlite is installed and makes code for this machine.

    >>> isinstance(available(), bool)
    True
    """
    try:
        _target()
    except Exception:  # no llvmlite, or no code generator for this CPU: numpy replays
        return False
    return True


def compile_sweep(sweep: Sweep) -> Kernel | None:
    """The sweep as one native kernel (compiled once per structure), or ``None`` when an op,
    a parameter or an array constant is not supported, or llvmlite is missing."""
    if not available():
        return None
    key = _structure(sweep)
    if key is None or not sweep.steps:
        return None
    with _lock:
        if key in _kernels:
            _kernels.move_to_end(key)
            return _kernels[key]
        kernel = _build(sweep)
        _kernels[key] = kernel
        while len(_kernels) > CACHED:
            _kernels.popitem(last=False)
        return kernel


def run(
    kernel: Kernel,
    slots: list[Any],
    size: int,
    into: Mapping[int, np.ndarray],
    flag: Callable[[np.ndarray], None],
) -> None:
    """Compute ``size`` points of the inputs in ``slots`` (1-d float64 arrays), writing each
    output slot into ``into[slot]`` (a contiguous array of ``size``) where given, else into a
    new array, and put it in ``slots``; ``flag(mask)`` gets the points with a non-finite
    checked value. The domain checks are the caller's (``kernel.checks``)."""
    inputs = [np.ascontiguousarray(slots[i]) for i in kernel.inputs]
    outputs = [into[s] if s in into else np.empty(size) for s in kernel.outputs]
    flags = np.empty(size, dtype=np.uint8) if kernel.flagging else None
    bulk = size - size % kernel.lanes
    if bulk:
        _call(kernel, bulk, inputs, outputs, flags)
    if bulk < size:  # the last few points, padded to one pass with copies of the last one
        rest = size - bulk
        padded = [
            np.concatenate([a[bulk:], np.repeat(a[-1:], kernel.lanes - rest)]) for a in inputs
        ]
        tails = [np.empty(kernel.lanes) for _ in outputs]
        tail_flags = None if flags is None else np.empty(kernel.lanes, dtype=np.uint8)
        _call(kernel, kernel.lanes, padded, tails, tail_flags)
        for out, tail in zip(outputs, tails):
            out[bulk:] = tail[:rest]
        if flags is not None and tail_flags is not None:
            flags[bulk:] = tail_flags[:rest]
    for slot, out in zip(kernel.outputs, outputs):
        slots[slot] = out
    if flags is not None and flags.any():
        flag(flags.view(bool))


def _call(
    kernel: Kernel,
    n: int,
    inputs: list[np.ndarray],
    outputs: list[np.ndarray],
    flags: np.ndarray | None,
) -> None:
    """One call of the machine code (ctypes lets go of the GIL while it runs)."""
    reads = (ctypes.c_void_p * max(len(inputs), 1))(*(a.ctypes.data for a in inputs))
    writes = (ctypes.c_void_p * max(len(outputs), 1))(*(a.ctypes.data for a in outputs))
    kernel.function(n, reads, writes, None if flags is None else flags.ctypes.data)


def _supported(step: Step, sweep: Sweep) -> bool:
    """Whether the kernel can compute the step exactly as the replay does."""
    if step.params or any(
        i in sweep.constants and sweep.constants[i].ndim != 0 for i in step.inputs
    ):
        return False
    if step.ufunc is None:
        return step.op.name in COMPOSITE
    name = step.ufunc.__name__
    return name in ARITHMETIC or name in FUNCTIONS or name in _INSTRUCTIONS


#: ufuncs computed by an LLVM instruction or intrinsic of one argument (exact in IEEE).
_INSTRUCTIONS = ("negative", "square", "sqrt", "absolute")


def _structure(sweep: Sweep) -> Hashable | None:
    """The program's structure, which decides its machine code; ``None`` if unsupported."""
    if not all(_supported(step, sweep) for step in sweep.steps):
        return None
    steps = tuple(
        (
            step.op.name if step.ufunc is None else step.ufunc.__name__,
            step.inputs,
            step.out,
            step.guard and step.check_finite,
            step.guard and step.check_domain,
        )
        for step in sweep.steps
    )
    constants = tuple(sorted((k, float(v).hex()) for k, v in sweep.constants.items()))
    return (len(sweep.variables), steps, constants, _outputs(sweep))


def _outputs(sweep: Sweep) -> tuple[int, ...]:
    """The computed slots the kernel writes as arrays: outputs, saturation slopes, and the
    inputs of domain checks."""
    wanted = [*sweep.values, *sweep.saturation]
    wanted += [s for g in sweep.gradients for s in g.values() if s is not None]
    wanted += [i for step in sweep.steps if step.guard and step.check_domain for i in step.inputs]
    computed = {step.out for step in sweep.steps}
    return tuple(dict.fromkeys(s for s in wanted if s in computed))


@functools.cache
def _target() -> tuple[str, str, int, str | None]:
    """This CPU's name and features for LLVM, the lanes per pass, and libmvec's prefix for
    them (``None`` where there is no libmvec: the C library's functions, lane by lane)."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    features = llvm.get_host_cpu_features()
    avx2 = bool(features.get("avx2")) and bool(features.get("avx"))
    lanes, prefix = (4, "_ZGVdN4") if avx2 else (2, "_ZGVbN2")
    cpu = (llvm.get_host_cpu_name(), features.flatten())
    if not llvm.get_process_triple().startswith("x86_64") or _libmvec() is None:
        return *cpu, lanes, None
    llvm.load_library_permanently(_LIBMVEC)
    return *cpu, lanes, prefix


def _machine() -> Any:
    """A new LLVM machine for this CPU (each execution engine owns the one it is given)."""
    import llvmlite.binding as llvm

    cpu, features, _, _ = _target()
    return llvm.Target.from_default_triple().create_target_machine(
        cpu=cpu, features=features, opt=3
    )


_LIBMVEC = "libmvec.so.1"


@functools.cache
def _libmvec() -> ctypes.CDLL | None:
    """glibc's vector maths library, where there is one."""
    try:
        return ctypes.CDLL(_LIBMVEC)
    except OSError:
        return None


def _vector_name(function: str, arity: int) -> str | None:
    """libmvec's name for ``function`` on a full vector (``_ZGVdN4v_sin``), if it has it."""
    _, _, _, prefix = _target()
    library = _libmvec()
    if prefix is None or library is None:
        return None
    name = f"{prefix}{'v' * arity}_{function}"
    return name if hasattr(library, name) else None


def _build(sweep: Sweep) -> Kernel:
    """Compile the sweep (every step supported) into a :class:`Kernel`."""
    _, _, lanes, _ = _target()
    module, flagging = _module(sweep, lanes)
    engine, address = _machine_code(module)
    prototype = ctypes.CFUNCTYPE(
        None, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p
    )
    checks = tuple(step for step in sweep.steps if step.guard and step.check_domain)
    variables = tuple(range(len(sweep.variables)))
    return Kernel(prototype(address), variables, _outputs(sweep), checks, flagging, lanes, engine)


def _module(sweep: Sweep, lanes: int) -> tuple[Any, bool]:
    """The LLVM module of ``kernel(n, inputs, outputs, flags)``: a loop over the points,
    ``lanes`` at a time; and whether it sets flags."""
    import llvmlite.binding as llvm
    from llvmlite import ir

    double, i64 = ir.DoubleType(), ir.IntType(64)
    vector = ir.VectorType(double, lanes)
    pointers = double.as_pointer().as_pointer()
    module = ir.Module(name="gradcalc_kernel")
    module.triple = llvm.get_process_triple()
    signature = ir.FunctionType(
        ir.VoidType(), [i64, pointers, pointers, ir.IntType(8).as_pointer()]
    )
    function = ir.Function(module, signature, name="kernel")
    count, reads, writes, flags_at = function.args
    entry, loop, done = (function.append_basic_block(n) for n in ("entry", "loop", "done"))
    builder = ir.IRBuilder(entry)
    outputs = _outputs(sweep)
    variables = range(len(sweep.variables))
    columns = [builder.load(builder.gep(reads, [i64(k)])) for k in variables]
    targets = [builder.load(builder.gep(writes, [i64(k)])) for k in range(len(outputs))]
    builder.cbranch(builder.icmp_signed(">", count, i64(0)), loop, done)

    builder.position_at_end(loop)
    index = builder.phi(i64)
    index.add_incoming(i64(0), entry)

    def at(base: Any, kind: Any = vector) -> Any:
        return builder.bitcast(builder.gep(base, [index]), kind.as_pointer())

    values: dict[int, Any] = {k: builder.load(at(columns[k]), align=8) for k in variables}
    for k, constant in sweep.constants.items():
        values[k] = ir.Constant(vector, [float(constant)] * lanes)
    bad = _body(_Emitter(module, builder, vector, lanes), sweep, values)
    for slot, target in zip(outputs, targets):
        builder.store(values[slot], at(target), align=8)
    if bad is not None:
        bytes_ = ir.VectorType(ir.IntType(8), lanes)
        builder.store(builder.zext(bad, bytes_), at(flags_at, bytes_), align=1)
    following = builder.add(index, i64(lanes))
    index.add_incoming(following, loop)
    builder.cbranch(builder.icmp_signed("<", following, count), loop, done)
    builder.position_at_end(done)
    builder.ret_void()
    return module, bad is not None


def _body(emit: _Emitter, sweep: Sweep, values: dict[int, Any]) -> Any:
    """Every step on the vectors of ``values`` (slot -> vector, filled in); the lanes where
    a value the replay checks is not finite, or ``None`` when none is checked."""
    bad = None
    for step in sweep.steps:
        result = emit.step(step, [values[i] for i in step.inputs])
        values[step.out] = result
        if step.guard and step.check_finite:
            size = emit.call_intrinsic("llvm.fabs", [result])
            finite = emit.builder.fcmp_ordered("<", size, emit.splat(np.inf))  # not NaN or inf
            not_finite = emit.builder.not_(finite)
            bad = not_finite if bad is None else emit.builder.or_(bad, not_finite)
    return bad


def _machine_code(module: Any) -> tuple[Any, int]:
    """The module optimised and compiled for this CPU: its execution engine (which holds the
    code) and the kernel's address."""
    import llvmlite.binding as llvm

    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    machine = _machine()
    passes = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(speed_level=2))
    passes.getModulePassManager().run(parsed, passes)
    engine = llvm.create_mcjit_compiler(parsed, machine)
    engine.finalize_object()
    return engine, engine.get_function_address("kernel")


class _Emitter:
    """Emits each step's computation on vectors of ``lanes`` doubles."""

    def __init__(self, module: Any, builder: Any, vector: Any, lanes: int):
        self.module, self.builder, self.vector, self.lanes = module, builder, vector, lanes
        self.declared: dict[str, Any] = {}

    def splat(self, number: float) -> Any:
        from llvmlite import ir

        return ir.Constant(self.vector, [number] * self.lanes)

    def call_intrinsic(self, name: str, arguments: list[Any]) -> Any:
        """LLVM's intrinsic ``name`` (``llvm.sqrt``) on vectors."""
        from llvmlite import ir

        full = f"{name}.v{self.lanes}f64"
        if full not in self.declared:
            kind = ir.FunctionType(self.vector, [self.vector] * len(arguments))
            self.declared[full] = ir.Function(self.module, kind, name=full)
        return self.builder.call(self.declared[full], arguments)

    def step(self, step: Step, args: list[Any]) -> Any:
        b = self.builder
        if step.ufunc is None:  # 1 / f(x): sech, sec, csc, cot
            return b.fdiv(self.splat(1.0), self.function(COMPOSITE[step.op.name], args[:1]))
        name = step.ufunc.__name__
        args = args[: step.ufunc.nin]
        if name in ARITHMETIC:
            return getattr(b, ARITHMETIC[name])(args[0], args[1])
        if name == "negative":
            return b.fneg(args[0])
        if name == "square":
            return b.fmul(args[0], args[0])
        if name == "sqrt":
            return self.call_intrinsic("llvm.sqrt", args)
        if name == "absolute":
            return self.call_intrinsic("llvm.fabs", args)
        return self.function(FUNCTIONS[name], args)

    def function(self, name: str, args: list[Any]) -> Any:
        """A C maths function of the vectors ``args``: libmvec's vector version where there is
        one, else the C library's, lane by lane."""
        from llvmlite import ir

        b = self.builder
        vector_name = _vector_name(name, len(args))
        if vector_name is not None:
            if vector_name not in self.declared:
                kind = ir.FunctionType(self.vector, [self.vector] * len(args))
                self.declared[vector_name] = ir.Function(self.module, kind, name=vector_name)
            return b.call(self.declared[vector_name], args)
        if name not in self.declared:
            double = ir.DoubleType()
            kind = ir.FunctionType(double, [double] * len(args))
            self.declared[name] = ir.Function(self.module, kind, name=name)
        result = ir.Constant(self.vector, ir.Undefined)
        for lane in range(self.lanes):
            parts = [b.extract_element(a, ir.IntType(32)(lane)) for a in args]
            result = b.insert_element(
                result, b.call(self.declared[name], parts), ir.IntType(32)(lane)
            )
        return result
