"""Accuracy, special values and vectorization of the branch-free math kernels
(passes/lowering/to_llvm/vector_math.py) that the JIT uses for exp, log, tanh,
sin, cos (and logistic, through exp) on f32 and f64.

Accuracy: 1e6 random points per function and dtype, log-spaced magnitudes over
the whole useful range (subnormals included) plus special values. f64 results
are compared with numpy (glibc libm, itself < 1 ulp); f32 results with the f64
value rounded to f32. Errors are in ulps of the reference's type.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import irtoolkit
from irtoolkit.abi import LOOP_INTERLEAVE
from irtoolkit.passes.lowering.to_llvm import vector_math

N = 1_000_000
FUNCS = ["exp", "log", "tanh", "sin", "cos", "logistic"]

# Bounds asserted (measured on 1e6 points: f64 1 ulp, logistic f64 2 ulp; f32 against
# the f64 value rounded: sin and cos (computed in f64) 0 ulp, exp and log (computed in
# f32) 1 ulp, tanh 2 ulp; logistic f32 goes through f32 arithmetic).
BOUND = {
    ("exp", "f64"): 1.5, ("log", "f64"): 1.5, ("tanh", "f64"): 2.0,
    ("sin", "f64"): 2.0, ("cos", "f64"): 2.0, ("logistic", "f64"): 3.0,
    ("exp", "f32"): 1.0, ("log", "f32"): 1.0, ("tanh", "f32"): 2.0,
    ("sin", "f32"): 1.0, ("cos", "f32"): 1.0, ("logistic", "f32"): 2.0,
}
# upper end of log10|x| sampled (lower end: subnormals)
TOP = {"exp": 3.0, "log": 308.0, "tanh": 2.0, "sin": 9.0, "cos": 9.0, "logistic": 3.0}
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5625, -0.5625, 709.78, 710.0,
           -745.1, -746.0, 88.7, 89.0, -103.0, -104.0, 1e-310, 5e-324, 2.2250738585072014e-308,
           3.141592653589793, 1.5707963267948966, 1e5, 1e9, 2.0 ** 30, -(2.0 ** 30), 1e22,
           1.7e308, 20.0, -20.0, 40.0, 0.7071067811865476, 1.4142135623730951]


def _source(n: int) -> str:
    out = []
    for fn in FUNCS:
        for t in ("f64", "f32"):
            out.append(f"func.func @{fn}_{t}(%x: tensor<{n}x{t}>) -> tensor<{n}x{t}> {{\n"
                       f"  %r = tensor.{fn} %x : tensor<{n}x{t}>\n"
                       f"  func.return %r : tensor<{n}x{t}>\n}}\n")
    return "".join(out)


@pytest.fixture(scope="module")
def exe():
    assert vector_math.ENABLED
    return irtoolkit.compile(irtoolkit.parse(_source(N)))


def _reference(fn: str, x: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        if fn == "logistic":
            if x.dtype == np.float32:
                # the lowering computes 1/(1+exp(-x)) in f32: exp(-x) overflows below -88.72
                ref = (1.0 / (1.0 + np.exp(-x64))).astype(np.float32)
                return np.where(-x64 > 88.72283935546875, np.float32(0), ref).astype(np.float64)
            # the true value (x87 long double), not numpy's own f64 rounding errors
            xl = x64.astype(np.longdouble)
            ref = (np.longdouble(1) / (np.longdouble(1) + np.exp(-xl))).astype(np.float64)
            return np.where(-x64 > 709.782712893384, 0.0, ref)  # exp(-x) overflows in f64
        ref = getattr(np, fn)(x64)
        return ref.astype(x.dtype).astype(np.float64)


def ulp_errors(got: np.ndarray, ref: np.ndarray, dtype) -> np.ndarray:
    got = got.astype(np.float64)
    same = (got == ref) | (np.isnan(got) & np.isnan(ref))
    same &= (np.signbit(got) == np.signbit(ref)) | np.isnan(ref)
    with np.errstate(all="ignore"):
        ulp = np.spacing(np.abs(ref).astype(dtype)).astype(np.float64)
        err = np.abs(got - ref) / ulp
    err = np.where(same, 0.0, err)
    return np.where(np.isnan(err), np.inf, err)  # inf vs finite, nan vs number


def _inputs(fn: str, dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    low = -320.0 if dtype == np.float64 else -45.0
    with np.errstate(over="ignore"):
        x = (10.0 ** rng.uniform(low, TOP[fn], N) * rng.choice([-1.0, 1.0], N)).astype(dtype)
        if fn == "log":
            x = np.abs(x)
        sp = np.array(SPECIAL, dtype=np.float64).astype(dtype)
        if fn == "log":
            sp = np.concatenate([sp, np.array([-1.0, -np.inf], dtype=dtype)])
    x[: len(sp)] = sp
    return x


@pytest.mark.parametrize("t", ["f64", "f32"])
@pytest.mark.parametrize("fn", FUNCS)
def test_accuracy(exe, fn, t):
    dtype = np.float64 if t == "f64" else np.float32
    x = _inputs(fn, dtype, seed=FUNCS.index(fn) * 2 + (t == "f32"))
    got = exe[f"{fn}_{t}"](x)
    assert got.dtype == dtype
    err = ulp_errors(got, _reference(fn, x), dtype)
    i = int(np.argmax(err))
    assert err[i] <= BOUND[(fn, t)], (
        f"{fn} {t}: {err[i]:.2f} ulp at x={x[i]!r}: got {got[i]!r}, want {_reference(fn, x[i:i+1])[0]!r}")


def _one(exe, fn, t, values):
    dtype = np.float64 if t == "f64" else np.float32
    x = np.zeros(N, dtype=dtype)
    x[: len(values)] = values
    return exe[f"{fn}_{t}"](x)[: len(values)]


# quiet and signalling NaNs of both signs with payloads in their low bits (a kernel
# deriving its scale from the bits of x * log2(e) must not turn one into a number)
NAN_BITS = {"f64": [0x7FF8000000000000, 0x7FF8000000000001, 0x7FF8000000000003, 0x7FF80000000007FF,
                    0xFFF8000000000002, 0x7FF0000000000001, 0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF],
            "f32": [0x7FC00000, 0x7FC00001, 0x7FC00003, 0xFFC00002, 0x7F800001, 0x7FFFFFFF,
                    0xFFFFFFFF]}


@pytest.mark.parametrize("t", ["f64", "f32"])
@pytest.mark.parametrize("fn", FUNCS)
def test_nan_payloads(exe, fn, t):
    dtype, itype = (np.float64, np.uint64) if t == "f64" else (np.float32, np.uint32)
    x = np.array(NAN_BITS[t], dtype=itype).view(dtype)
    got = _one(exe, fn, t, x)
    assert np.isnan(got).all(), f"{fn} {t}: {got!r}"


@pytest.mark.parametrize("t", ["f64", "f32"])
def test_special_values(exe, t):
    big = 710.0 if t == "f64" else 89.0
    under = -746.0 if t == "f64" else -104.0
    e = _one(exe, "exp", t, [big, under, np.inf, -np.inf, np.nan, -0.0, 0.0])
    assert np.isposinf(e[0]) and e[1] == 0 and np.isposinf(e[2]) and e[3] == 0
    assert np.isnan(e[4]) and e[5] == 1 and e[6] == 1
    tiny = 5e-324 if t == "f64" else 1e-45
    lg = _one(exe, "log", t, [0.0, -0.0, -1.0, np.inf, np.nan, 1.0, tiny, -np.inf])
    assert np.isneginf(lg[0]) and np.isneginf(lg[1]) and np.isnan(lg[2]) and np.isposinf(lg[3])
    assert np.isnan(lg[4]) and lg[5] == 0 and not np.signbit(lg[5]) and np.isnan(lg[7])
    assert lg[6] == np.log(np.float64(np.array(tiny, dtype=lg.dtype))).astype(lg.dtype)
    th = _one(exe, "tanh", t, [-0.0, 0.0, np.inf, -np.inf, np.nan, 25.0, -25.0, 1e-300])
    assert th[0] == 0 and np.signbit(th[0]) and th[1] == 0 and not np.signbit(th[1])
    assert th[2] == 1 and th[3] == -1 and np.isnan(th[4]) and th[5] == 1 and th[6] == -1
    assert th[7] == np.array(1e-300, dtype=th.dtype)
    s = _one(exe, "sin", t, [-0.0, np.inf, -np.inf, np.nan, 1e22, 3e38, -1e30])
    assert s[0] == 0 and np.signbit(s[0]) and np.isnan(s[1:4]).all()
    x = np.array([1e22, 3e38, -1e30], dtype=s.dtype).astype(np.float64)
    np.testing.assert_array_equal(s[4:], np.sin(x).astype(s.dtype))  # libm path: exact
    c = _one(exe, "cos", t, [-0.0, np.inf, np.nan, 1e22])
    assert c[0] == 1 and np.isnan(c[1:3]).all()
    assert c[3] == np.cos(np.float64(np.array(1e22, dtype=c.dtype))).astype(c.dtype)


def test_subnormal_results():
    """exp rounds once into the subnormal range; log of subnormals is exact-ish."""
    src = _source(64)
    exe = irtoolkit.compile(irtoolkit.parse(src))
    x = np.linspace(-745.1, -708.0, 64)
    got = exe["exp_f64"](x)
    assert (ulp_errors(got, np.exp(x), np.float64) <= 1).all()
    x = np.geomspace(5e-324, 2.2e-308, 64)
    assert (ulp_errors(exe["log_f64"](x), np.log(x), np.float64) <= 1).all()


@pytest.mark.parametrize("fn", ["exp", "tanh", "log", "sin"])
def test_loops_vectorize(fn):
    """The kernels are plain arithmetic: the element loop becomes vector code with no
    scalar libm call left (sin/cos call their vector helper, which calls libm only
    for lanes with |x| >= 2^30)."""
    src = (f"func.func @k(%x: tensor<4096xf64>) -> tensor<4096xf64> {{\n"
           f"  %r = tensor.{fn} %x : tensor<4096xf64>\n  func.return %r : tensor<4096xf64>\n}}\n")
    ir = irtoolkit.compile(irtoolkit.parse(src)).optimized_llvm_ir
    assert re.search(r"<(4|8) x double>", ir)
    assert "@llvm.fma.v" in ir
    assert not re.search(rf'@"?(llvm\.)?{fn}(\.[fv]\w*)?"?\(', _loop_function(ir))
    if fn == "sin":
        assert re.search(r'call <\d+ x double> @"?irt_vm_sin_big_v\d+', ir)


def test_kernel_loops_interleaved():
    """A loop calling a kernel carries ``llvm.loop.interleave.count`` on its back edge
    (one kernel is a long dependency chain: one vector per iteration is latency-bound);
    a loop without one is left to LLVM's cost model. Vectorized, the kernel loop steps
    by LOOP_INTERLEAVE vectors."""
    from irtoolkit.runtime.translate import llvm_ir

    src = ("func.func @k(%x: tensor<4096xf64>) -> tensor<4096xf64> {\n"
           "  %r = tensor.exp %x : tensor<4096xf64>\n  func.return %r : tensor<4096xf64>\n}\n"
           "func.func @n(%x: tensor<4096xf64>) -> tensor<4096xf64> {\n"
           "  %r = tensor.neg %x : tensor<4096xf64>\n  func.return %r : tensor<4096xf64>\n}\n")
    text = llvm_ir(irtoolkit.parse(src))
    option = re.search(r'^(!\d+) = !\{ !"llvm.loop.interleave.count", i32 (\d+) \}$', text, re.M)
    assert option and int(option[2]) == LOOP_INTERLEAVE
    ids = re.findall(rf"^(!\d+) = !\{{ \1, {option[1]} \}}$", text, re.M)
    bodies = {p.split("(", 1)[0].split("@")[-1].strip('"'): p for p in re.split(r"\ndefine ", text)[1:]}
    tagged = {name for name, body in bodies.items() if re.search(r"!llvm.loop !\d+", body)}
    assert ids and tagged == {"k"}, tagged
    ir = irtoolkit.compile(irtoolkit.parse(src)).optimized_llvm_ir
    lanes = int(re.search(r"<(\d+) x double>", _loop_function(ir))[1])
    steps = {int(n) for n in re.findall(r"%index.next = add nuw i64 %index, (\d+)", ir)}
    assert lanes * LOOP_INTERLEAVE in steps, (lanes, steps)


def _loop_function(ir: str) -> str:
    """The text of the compiled function itself (not the libm helpers)."""
    parts = re.split(r"\ndefine ", ir)[1:]
    body = [p.split("\n}", 1)[0] for p in parts if "irt_vm_" not in p.split("\n", 1)[0]]
    assert body
    return "\n".join(body)


def test_intrinsics_kept_in_llvm_dialect():
    """convert-to-llvm output keeps readable intrinsic calls; expand-vector-math
    (run by the JIT) replaces them by calls of one kernel function per intrinsic,
    f32 exp, log and tanh in f32 arithmetic (the others through f64); sin and pow
    call their libm helpers (declared in the module) for the arguments the fast
    path leaves out."""
    from xdsl.dialects import llvm

    from irtoolkit.pipeline import run_pipeline

    src = """
    func.func @f(%x: f64, %y: f32) -> (f64, f32) {
      %a = math.exp %x : f64
      %b = math.tanh %a : f64
      %c = math.sin %b : f64
      %d = math.log %y : f32
      %e = math.powf %c, %x : f64
      return %e, %d : f64, f32
    }
    """
    module = irtoolkit.parse(src)
    run_pipeline(module, "convert-to-llvm")
    names = [op.intrin.data for op in module.walk() if isinstance(op, llvm.CallIntrinsicOp)]
    assert names == ["llvm.exp.f64", "llvm.tanh.f64", "llvm.sin.f64", "llvm.log.f32", "llvm.pow.f64"]
    assert vector_math.expand_math_intrinsics(module) == 5
    names = {op.intrin.data for op in module.walk() if isinstance(op, llvm.CallIntrinsicOp)}
    assert not names & {"llvm.exp.f64", "llvm.tanh.f64", "llvm.sin.f64", "llvm.log.f32",
                        "llvm.pow.f64"}
    from xdsl.dialects.builtin import f32

    assert not any(isinstance(op, llvm.FPExtOp) for op in module.walk())
    assert any(isinstance(op, llvm.FMulOp) and op.res.type == f32 for op in module.walk())
    calls = [op.callee.string_value() for op in module.walk() if isinstance(op, llvm.CallOp)]
    # one kernel function per intrinsic (the JIT inlines them), from @f in order
    kernels = ["__irt_vm_exp_f64", "__irt_vm_tanh_f64", "__irt_vm_sin_f64", "__irt_vm_log_f32",
               "__irt_vm_pow_f64"]
    assert calls[:5] == kernels
    assert sorted(calls[5:]) == ["irt_vm_pow_big", "irt_vm_sin_big"]
    defined = [op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp) and op.body.blocks]
    assert defined == ["f", *kernels]
    decls = {op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp) and not op.body.blocks}
    assert decls >= {"irt_vm_sin_big", "irt_vm_pow_big"}
    module.verify()


# dense uniform samples where the kernels switch formulas or reduce arguments
UNIFORM = {
    "exp": [(-745.2, 709.8), (-1.0, 1.0)],
    "log": [(0.5, 2.0), (0.99, 1.01), (1e-3, 1e3)],
    "tanh": [(-3.0, 3.0), (0.5, 0.625), (15.0, 25.0)],
    "sin": [(-10.0, 10.0), (1e5, 1e9), (-2.0 ** 30, 2.0 ** 30)],
    "cos": [(-10.0, 10.0), (1e5, 1e9), (1e-8, 1e-3)],
    "logistic": [(-40.0, 40.0)],
}


@pytest.mark.parametrize("fn", FUNCS)
def test_accuracy_uniform(exe, fn):
    rng = np.random.default_rng(7)
    for t, dtype in (("f64", np.float64), ("f32", np.float32)):
        for lo, hi in UNIFORM[fn]:
            x = rng.uniform(lo, hi, N).astype(dtype)
            got = exe[f"{fn}_{t}"](x)
            err = ulp_errors(got, _reference(fn, x), dtype)
            i = int(np.argmax(err))
            assert err[i] <= BOUND[(fn, t)], f"{fn} {t} on [{lo}, {hi}]: {err[i]:.2f} ulp at x={x[i]!r}"


# ----------------------------------------------------------------------------- pow

POW_N = 200_000


@pytest.fixture(scope="module")
def pow_exe():
    src = "".join(
        f"func.func @pow_{t}(%x: tensor<{POW_N}x{t}>, %y: tensor<{POW_N}x{t}>) -> tensor<{POW_N}x{t}> {{\n"
        f"  %r = tensor.pow %x, %y : tensor<{POW_N}x{t}>\n  func.return %r : tensor<{POW_N}x{t}>\n}}\n"
        for t in ("f64", "f32"))
    return irtoolkit.compile(irtoolkit.parse(src))


def _pow_reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if x.dtype == np.float32:
            return np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32).astype(np.float64)
        # the true value (x87 long double pow), not numpy's own rounding
        return np.power(x.astype(np.longdouble), y.astype(np.longdouble)).astype(np.float64)


def _pow_cases(dtype):
    rng = np.random.default_rng(11)
    n = POW_N
    top = 300 if dtype == np.float64 else 37
    big_y = 1000.0 if dtype == np.float64 else 120.0
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, 0.5, 1e-310, -2.0, 3.0]
    sx, sy = np.meshgrid(special, special + [-3.0, 0.5, -0.5, 1e30, -1e30, 2.0 ** 52 + 2])
    return {
        "wide": (10.0 ** rng.uniform(-top, top, n), rng.uniform(-1, 1, n)),
        "moderate": (rng.uniform(0, 10, n), rng.uniform(-30, 30, n)),
        "large results": (rng.uniform(0.5, 2, n), rng.uniform(-big_y, big_y, n)),
        "negative x, integer y": (rng.uniform(-10, 10, n), rng.integers(-40, 40, n).astype(float)),
        "negative x, other y": (rng.uniform(-10, 0, n), rng.uniform(-3, 3, n)),
        "special": (sx.ravel(), sy.ravel()),
    }


@pytest.mark.parametrize("t", ["f64", "f32"])
def test_pow(pow_exe, t):
    """pow: 1 ulp (f64, measured) against long double; special cases as C99 pow."""
    dtype = np.float64 if t == "f64" else np.float32
    for name, (x, y) in _pow_cases(dtype).items():
        n = len(x)
        xx = np.ones(POW_N, dtype)
        yy = np.ones(POW_N, dtype)
        with np.errstate(over="ignore"):
            xx[:n] = x
            yy[:n] = y
        got = pow_exe[f"pow_{t}"](xx, yy)[:n]
        err = ulp_errors(got, _pow_reference(xx[:n], yy[:n]), dtype)
        i = int(np.argmax(err))
        assert err[i] <= 1.5, f"pow {t} {name}: {err[i]:.2f} ulp at x={xx[i]!r}, y={yy[i]!r}: {got[i]!r}"


def test_pow_vectorizes(pow_exe):
    ir = pow_exe.optimized_llvm_ir
    assert re.search(r"fdiv <(4|8) x double>", ir)
    assert re.search(r'call <\d+ x double> @"?irt_vm_pow_big_v\d+', ir)
    assert not re.search(r'@"?(llvm\.)?pow(\.\w+)?"?\(', _loop_function(ir))
