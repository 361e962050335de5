"""The LLVM module of a replayed program: one loop over the points, forward and backward.

:mod:`gradcalc.engine.compile.native` compiles and runs what this module builds. The module is made
as llvmlite objects, never from text: slots are numbered values, constants are doubles.
Each pass of the loop computes ``lanes`` points at once in vector registers; functions come
from glibc's vector maths library (libmvec) where it has them, else from the C library one
lane at a time.

>>> from gradcalc.engine.compile.sweep import record_sweep
>>> from gradcalc.lang.graph import lower
>>> from gradcalc.lang.parser import parse_program
>>> sweep = record_sweep(lower(parse_program("x*sin(x)")), ("x",))
>>> module, flags = module_of(sweep, 4)
>>> kernel = module.get_global("kernel")  # kernel(n, inputs, outputs, flags, extents)
>>> len(kernel.args), flags  # (it flags x*sin(x) from 2^1016 on: numpy's might overflow)
(5, True)
>>> module_of(record_sweep(lower(parse_program("3*x**2 + x")), ("x",)), 4)[1]  # (exact)
False
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gradcalc.engine.compile.native_bounds import (
    HUGE,
    Bounds,
    either,
    flag_limit,
    inexact_slots,
    overflowing_slots,
)
from gradcalc.engine.compile.native_rules import BOUNDARIES

if TYPE_CHECKING:
    from gradcalc.engine.compile.program import Step, Sweep

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


#: ufuncs computed by LLVM instructions and intrinsics, exactly as numpy computes them:
#: bit for bit, signed zeros and NaN included (``sign(-0.0)`` is ``+0.0``; ``minimum`` and
#: ``maximum`` give their second argument on a tie, so ``minimum(-0.0, 0.0)`` is ``0.0``,
#: and NaN from either argument).
INSTRUCTIONS = (
    "negative",
    "square",
    "sqrt",
    "absolute",
    "floor",
    "ceil",
    "sign",
    "minimum",
    "maximum",
)


def outputs_of(sweep: Sweep) -> tuple[int, ...]:
    """The computed slots the kernel writes as arrays: the watched ones (see
    :func:`watched_of`), then the inputs of domain checks."""
    checked = [i for step in sweep.steps if step.guard and step.check_domain for i in step.inputs]
    return tuple(dict.fromkeys([*watched_of(sweep), *_computed(sweep, checked)]))


@functools.cache
def target() -> tuple[str, str, int, str | None]:
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


def machine() -> Any:
    """A new LLVM machine for this CPU (each execution engine owns the one it is given)."""
    import llvmlite.binding as llvm

    cpu, features, _, _ = target()
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


def vector_name(function: str, arity: int) -> str | None:
    """libmvec's name for ``function`` on a full vector (``_ZGVdN4v_sin``), if it has it."""
    _, _, _, prefix = target()
    library = _libmvec()
    if prefix is None or library is None:
        return None
    name = f"{prefix}{'v' * arity}_{function}"
    return name if hasattr(library, name) else None


def watched_of(sweep: Sweep) -> tuple[int, ...]:
    """The computed outputs whose magnitudes the replay looks at: values (NaN, infinity),
    saturation slopes and partial derivatives (vanishing, exploding)."""
    return tuple(dict.fromkeys(_computed(sweep, sweep.kept_slots())))


def _computed(sweep: Sweep, slots: list[int]) -> list[int]:
    """Those of ``slots`` a step computes (not a variable's, not a constant's)."""
    computed = {step.out for step in sweep.steps}
    return [s for s in slots if s in computed]


def module_of(sweep: Sweep, lanes: int) -> tuple[Any, bool]:
    """The LLVM module of ``kernel(n, inputs, outputs, flags, extents)``: a loop over the
    points, ``lanes`` at a time; and whether it sets flags."""
    import llvmlite.binding as llvm
    from llvmlite import ir

    double, i64 = ir.DoubleType(), ir.IntType(64)
    vector = ir.VectorType(double, lanes)
    pointers = double.as_pointer().as_pointer()
    module = ir.Module(name="gradcalc_kernel")
    module.triple = llvm.get_process_triple()
    signature = ir.FunctionType(
        ir.VoidType(), [i64, pointers, pointers, ir.IntType(8).as_pointer(), double.as_pointer()]
    )
    function = ir.Function(module, signature, name="kernel")
    count, reads, writes, flags_at, extents_at = function.args
    entry, loop, done = (function.append_basic_block(n) for n in ("entry", "loop", "done"))
    builder = ir.IRBuilder(entry)
    outputs = outputs_of(sweep)
    variables = range(len(sweep.variables))
    columns = [builder.load(builder.gep(reads, [i64(k)])) for k in variables]
    targets = [builder.load(builder.gep(writes, [i64(k)])) for k in range(len(outputs))]
    emit = _Emitter(module, builder, vector, lanes)
    extents = _Extents(emit, watched_of(sweep), extents_at)
    builder.cbranch(builder.icmp_signed(">", count, i64(0)), loop, done)

    builder.position_at_end(loop)
    index = builder.phi(i64)
    index.add_incoming(i64(0), entry)
    extents.enter(entry)

    def at(base: Any, kind: Any = vector) -> Any:
        return builder.bitcast(builder.gep(base, [index]), kind.as_pointer())

    values: dict[int, Any] = {k: builder.load(at(columns[k]), align=8) for k in variables}
    for k, constant in sweep.constants.items():
        values[k] = ir.Constant(vector, [float(constant)] * lanes)
    bad = _body(emit, sweep, values)
    for slot, target in zip(outputs, targets):
        builder.store(values[slot], at(target), align=8)
    extents.update(values, loop)
    if bad is not None:
        bytes_ = ir.VectorType(ir.IntType(8), lanes)
        builder.store(builder.zext(bad, bytes_), at(flags_at, bytes_), align=1)
    following = builder.add(index, i64(lanes))
    index.add_incoming(following, loop)
    builder.cbranch(builder.icmp_signed("<", following, count), loop, done)
    builder.position_at_end(done)
    extents.store(entry, loop)
    builder.ret_void()
    return module, bad is not None


#: The vectors of an output's extent: smallest and largest magnitude.
PARTS = 2


class _Extents:
    """Per lane, the smallest and largest magnitude of each watched output (NaN from the
    first NaN on: ``llvm.minimum`` and ``llvm.maximum`` propagate it, as numpy's minimum and
    maximum do), carried through the loop: read from ``extents`` in the entry block (the
    caller's starting values), stored back there at the end; :data:`PARTS` vectors each."""

    def __init__(self, emit: _Emitter, watched: tuple[int, ...], at: Any):
        self.emit, self.watched, self.at = emit, watched, at
        self.start = [[self._load(k, part) for part in range(PARTS)] for k in range(len(watched))]
        self.phis: list[list[Any]] = []
        self.updated: list[list[Any]] = []

    def _place(self, k: int, part: int) -> Any:
        from llvmlite import ir

        b = self.emit.builder
        offset = ir.IntType(64)((PARTS * k + part) * self.emit.lanes)
        return b.bitcast(b.gep(self.at, [offset]), self.emit.vector.as_pointer())

    def _load(self, k: int, part: int) -> Any:
        return self.emit.builder.load(self._place(k, part), align=8)

    def enter(self, entry: Any) -> None:
        """At the top of the loop (after the index's phi): the running extents."""
        b = self.emit.builder
        self.phis = [[b.phi(self.emit.vector) for _ in range(PARTS)] for _ in self.watched]
        for phis, start in zip(self.phis, self.start):
            for phi, value in zip(phis, start):
                phi.add_incoming(value, entry)

    def update(self, values: Mapping[int, Any], loop: Any) -> None:
        """At the end of the loop's body: take this pass's values in."""
        emit = self.emit
        for slot, (smallest, largest) in zip(self.watched, self.phis):
            size = emit.call_intrinsic("llvm.fabs", [values[slot]])
            parts = [
                emit.call_intrinsic("llvm.minimum", [size, smallest]),
                emit.call_intrinsic("llvm.maximum", [size, largest]),
            ]
            for phi, part in zip((smallest, largest), parts):
                phi.add_incoming(part, loop)
            self.updated.append(parts)

    def store(self, entry: Any, loop: Any) -> None:
        """In the block after the loop: store the extents (the starting ones without a pass)."""
        b = self.emit.builder
        finals = []  # (every phi at the top of the block)
        for start, updated in zip(self.start, self.updated):
            for first, last in zip(start, updated):
                final = b.phi(self.emit.vector)
                final.add_incoming(first, entry)
                final.add_incoming(last, loop)
                finals.append(final)
        for k, final in enumerate(finals):
            b.store(final, self._place(*divmod(k, PARTS)), align=8)


def _body(emit: _Emitter, sweep: Sweep, values: dict[int, Any]) -> Any:
    """Every step on the vectors of ``values`` (slot -> vector, filled in); the lanes to flag
    for the tape -- where a value the replay checks is not finite, where such a value that
    may differ from numpy's, or a function's that overflows, is
    :data:`~gradcalc.engine.compile.native_bounds.HUGE` (numpy's might be infinite), or where a
    decision could fall otherwise at numpy's values (see
    :mod:`gradcalc.engine.compile.native_bounds`) -- or ``None`` when nothing is checked."""
    bounds = Bounds(emit, sweep, BOUNDARIES, COMPOSITE)
    inexact = inexact_slots(sweep)
    overflowing = overflowing_slots(sweep, inexact)
    bad = None
    for step in sweep.steps:
        args = [values[i] for i in step.inputs]
        result = emit.step(step, args)
        values[step.out] = result
        limit = flag_limit(step, inexact, overflowing)
        if limit is not None:
            bad = either(emit.builder, bad, _reaching(emit, result, limit))
        bad = either(emit.builder, bad, bounds.step(step, args, result))
    for slot in watched_of(sweep):  # (the replay checks these itself, for infinity only)
        if slot in inexact:
            bad = either(emit.builder, bad, _reaching(emit, values[slot], HUGE))
    return bad


def _reaching(emit: _Emitter, value: Any, limit: float) -> Any:
    """The lanes where ``|value|`` is ``limit`` or more, or NaN."""
    size = emit.call_intrinsic("llvm.fabs", [value])
    return emit.builder.fcmp_unordered(">=", size, emit.splat(limit))


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
        if name in ("absolute", "floor", "ceil"):
            return self.call_intrinsic({"absolute": "llvm.fabs"}.get(name, f"llvm.{name}"), args)
        if name in ("minimum", "maximum"):  # numpy: a if a < b (a > b) or a is NaN, else b
            first, second = args
            wins = b.fcmp_ordered("<" if name == "minimum" else ">", first, second)
            wins = b.or_(wins, b.fcmp_unordered("uno", first, first))
            return b.select(wins, first, second)
        if name == "sign":  # 1, -1, NaN for NaN, and +0.0 for either zero
            x = args[0]
            zero_or_nan = b.select(b.fcmp_unordered("uno", x, x), x, self.splat(0.0))
            negative = b.select(
                b.fcmp_ordered("<", x, self.splat(0.0)), self.splat(-1.0), zero_or_nan
            )
            return b.select(b.fcmp_ordered(">", x, self.splat(0.0)), self.splat(1.0), negative)
        return self.function(FUNCTIONS[name], args)

    def function(self, name: str, args: list[Any]) -> Any:
        """A C maths function of the vectors ``args``: libmvec's vector version where there is
        one, else the C library's, lane by lane."""
        from llvmlite import ir

        b = self.builder
        vectorised = vector_name(name, len(args))
        if vectorised is not None:
            if vectorised not in self.declared:
                kind = ir.FunctionType(self.vector, [self.vector] * len(args))
                self.declared[vectorised] = ir.Function(self.module, kind, name=vectorised)
            return b.call(self.declared[vectorised], args)
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
