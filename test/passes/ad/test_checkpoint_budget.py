"""Checkpointing under a memory budget (passes/ad/checkpoint.py): the Revolve
schedule against the binomial optimum, the IR that computes it, the schedules
the cost model picks, gradients identical to the unchecked ones (interpreter
and compiled) and to finite differences, and the peak memory of a compiled
gradient within its budget."""

import os
import subprocess
import sys
from functools import lru_cache

import numpy as np
import pytest
from adcheck import add_grad, check_grad

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError
from irtoolkit.passes.ad import checkpoint as ck

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, ROOT)
from bench.memory import MALLOC_ENV  # noqa: E402


# -- the schedule ------------------------------------------------------------------------
@lru_cache(maxsize=None)
def optimal_advances(length, free):
    """Least recomputation to reverse ``length`` steps from a stored first state
    with ``free`` more slots, by exhaustive search over the first split."""
    if length <= 1:
        return 0
    if free == 0:
        return length * (length - 1) // 2
    return min(d + optimal_advances(length - d, free - 1) + optimal_advances(d, free)
               for d in range(1, length))


def simulate(m, slots):
    """The schedule the generated IR runs (RevolveTape.forward, then .restore
    before each reversal): its recomputed steps; checks that the stack holds
    the state of every iteration when it is reversed, within ``slots``."""
    stack, nxt = [], 0
    for j in range(m):  # forward sweep
        if j == nxt:
            stack.append(j)
            free, left = slots - len(stack), m - j
            nxt = j + ck.revolve_split(left, free) if free > 0 and left >= 2 else m
    advances = 0
    for i in reversed(range(m)):
        p0 = p = stack[-1]
        while p < i:
            free = slots - len(stack)
            q = p + ck.revolve_split(i - p + 1, free) if free > 0 else i
            assert p < q <= i
            advances += q - p
            if q < i:
                stack.append(q)
            p = q
        assert len(stack) <= slots
        if p0 == i:
            stack.pop()
    assert stack == []
    return advances


def test_revolve_split_is_optimal():
    for free in range(1, 7):
        for length in range(2, 90):
            d = ck.revolve_split(length, free)
            assert d + optimal_advances(length - d, free - 1) + optimal_advances(d, free) \
                == optimal_advances(length, free), (length, free, d)
            assert ck.revolve_advances(length, free) == optimal_advances(length, free)


@pytest.mark.parametrize("slots", [1, 2, 3, 5, 8])
def test_generated_schedule_is_binomial(slots):
    for m in range(1, 70):
        got = simulate(m, slots)
        # the forward sweep places the first checkpoints for free; the rest is optimal
        assert got == optimal_advances(m, slots - 1) - ck.first_chain(m, slots), (m, slots)
        assert ck.schedule_cost(m, 1, slots) == 2 * m + (got if slots < m else 0)


def test_emitted_split_computes_revolve_split():
    from xdsl.dialects import func
    from xdsl.dialects.builtin import IndexType, ModuleOp
    from xdsl.ir import Block, Region

    from irtoolkit.passes.ad.emit import Emitter

    idx = IndexType()
    block = Block(arg_types=[idx, idx])
    E = Emitter(block)
    E.op(func.ReturnOp(ck.emit_revolve_split(E, block.args[0], block.args[1])))
    m = ModuleOp([func.FuncOp("split", ((idx, idx), (idx,)), Region(block))])
    exe = irt.compile(irt.parse(str(m)))
    for free in (1, 2, 3, 4, 9):
        for length in (2, 3, 5, 8, 13, 40, 97, 400, 5000):
            want = ck.revolve_split(length, free)
            assert exe["split"](length, free) == want, (length, free)
            if length < 50:
                assert irt.interpret(m, "split", length, free) == want


def test_choose_schedule():
    # everything fits: no checkpointing
    assert ck.choose_schedule(100, 8, 8, 0, 1600) is None
    # the carried values would fit but not the residuals: segments (recomputed once,
    # storing their residuals) as fast by the model, in less memory
    s = ck.choose_schedule(100, 8, 8, 0, 800)
    assert s.slots is None and ck.schedule_cost(100, s.segment, 100) == 200
    # sqrt-like: segments whose starts all fit (two evaluations per iteration)
    s = ck.choose_schedule(400, 1000, 1000, 0, 60_000)
    assert s.slots is None and 400 / s.segment * 1000 + s.segment * 2000 <= 60_000
    # tighter: Revolve over segments, or over iterations
    s = ck.choose_schedule(400, 1000, 1000, 0, 30_000)
    assert s.slots is not None and s.slots * 1000 + (s.segment or 0) * 2000 <= 30_000
    assert ck.choose_schedule(400, 1000, 1000, 0, 3_000) == ck.Scheme(None, 3)
    # unknown trip count: fixed from the budget, Revolve adapts at run time
    s = ck.choose_schedule(None, 1000, 1000, 500, 20_500)
    assert s == ck.Scheme(5, 10)
    with pytest.raises(ValueError):
        ck.choose_schedule(400, 1000, 0, 500, 1_400)


def test_parse_memory():
    assert ck.parse_memory("64MB") == 64 << 20
    assert ck.parse_memory("16 mb") == 16 << 20
    assert ck.parse_memory("1.5GB") == 3 << 29
    assert ck.parse_memory("512KiB") == 512 << 10
    assert ck.parse_memory("4096") == 4096
    assert ck.parse_memory("64 MiBs") is None
    assert ck.parse_memory("lots") is None


# -- gradients -----------------------------------------------------------------------------
SCALAR = """
func.func @p(%x: f64, %y: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cN = arith.constant NN : index
  %r = loop.for %i = %c0 to UB step %c1 iter_args(%a = %x) -> (f64) {
    %s = math.sin %a : f64
    %t = arith.mulf %s, %y : f64
    %u = arith.addf %t, %x : f64
    loop.yield %u : f64
  }ATTR
  return %r : f64
}
"""
TYPES = ["f64", "f64", "index"]


def scalar(n, attr="", dynamic=False):
    src = SCALAR.replace("NN", str(n)).replace("UB", "%n" if dynamic else "%cN")
    return src.replace("ATTR", f' {{autodiff.checkpoint_memory = "{attr}"}}' if attr else "")


def schemes_of(text, pipeline="ad"):
    """The schemes the pass chooses, in order (and the module after the pipeline)."""
    chosen = []
    orig = ck.loop_scheme

    def spy(*a):
        chosen.append(orig(*a))
        return chosen[-1]

    ck.loop_scheme = spy
    try:
        m = irt.parse(text)
        irt.run_pipeline(m, pipeline)
    finally:
        ck.loop_scheme = orig
    return chosen, m


# one checkpoint is 8 bytes, the working-memory estimate 16: 24 bytes leave one slot
BUDGETS = {"24": ck.Scheme(None, 1), "40": ck.Scheme(None, 3), "104": ck.Scheme(2, 7),
           "200": ck.Scheme(4, None)}


@pytest.mark.parametrize("dynamic", [False, True])
def test_budgets_give_identical_gradients(dynamic):
    """Every budget (each a different schedule) and trip count: the same operations
    on the same values, so the same gradient bits, interpreted and compiled."""
    trips = (0, 1, 2, 7, 40) if dynamic else (7, 40)
    texts, cases = [], []
    for n in ((40,) if dynamic else trips):  # a dynamic count is an argument
        plain = add_grad(scalar(n, dynamic=dynamic), "p", TYPES, [0, 1])
        texts.append(plain)
        for budget, scheme in BUDGETS.items():
            text = add_grad(scalar(n, budget, dynamic), "p", TYPES, [0, 1])
            chosen, m = schemes_of(text)
            if not dynamic and n == 40:
                assert chosen == [scheme], budget
            cases.append((n, budget, m, len(texts), len(texts) - 1 - texts[::-1].index(plain)))
            texts.append(text)
    exe = irt.compile(irt.parse("\n".join(
        t.replace("@p", f"@p{i}").replace("@__d", f"@d{i}") for i, t in enumerate(texts))))
    for n0, budget, m, i, j in cases:
        plain = irt.parse(texts[j])
        for n in (trips if dynamic else (n0,)):
            args = (0.5, 1.3, n)
            want = irt.interpret(plain, "__d", *args)
            assert irt.interpret(m, "__d", *args) == want, (n, budget)
            assert tuple(exe[f"d{i}"](*args)) == tuple(exe[f"d{j}"](*args)), (n, budget)


def test_budget_matches_finite_differences(backend):
    check_grad(scalar(23, "40"), "p", TYPES, [np.float64(0.5), np.float64(1.3), 23], wrt=[0, 1],
               backend=backend)


WHILE = """
func.func @w(%x: f64, %y: f64) -> f64 {
  %lim = arith.constant 30.0 : f64
  %h = arith.constant 0.5 : f64
  %r = loop.while (%a = %x) : (f64) -> f64 {
    %go = arith.cmpf olt, %a, %lim : f64
    loop.condition(%go) %a : f64
  } do {
  ^bb0(%b: f64):
    %s = math.sin %b : f64
    %t = arith.mulf %s, %h : f64
    %u = arith.addf %b, %t : f64
    %v = arith.addf %u, %y : f64
    loop.yield %v : f64
  }ATTR
  return %r : f64
}
"""


@pytest.mark.parametrize("how", ["attr", "option"])
def test_while_under_budget(how, backend):
    """A while loop's trip count is known only at run time: Revolve adapts to it."""
    src = WHILE.replace("ATTR", ' attributes {autodiff.checkpoint_memory = "40"}' if how == "attr" else "")
    pipeline = "ad" if how == "attr" else "ad{checkpoint-memory=40}"
    chosen, m = schemes_of(add_grad(src, "w", ["f64", "f64"], [0, 1]), pipeline)
    assert chosen == [ck.Scheme(None, 3)]  # 16 bytes of working memory, 8 per slot
    plain = irt.parse(add_grad(WHILE.replace("ATTR", ""), "w", ["f64", "f64"], [0, 1]))
    args = (0.5, 1.1)
    want = irt.interpret(plain, "__d", *args)
    if backend == "interp":
        assert irt.interpret(m, "__d", *args) == want
    else:
        assert tuple(irt.compile(m)["__d"](*args)) == tuple(irt.compile(plain)["__d"](*args))
    if how == "attr":
        check_grad(src, "w", ["f64", "f64"], [np.float64(0.5), np.float64(1.1)], backend=backend)


# a 1-D diffusion-reaction stencil with a tensor state and a weight read every step
STENCIL = """
func.func @s(%u0: tensor<18xf64>, %k: tensor<16xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 30 : index
  %h = arith.constant 0.1 : f64
  %sh = tensor.splat %h : tensor<16xf64>
  %uT = loop.for %i = %c0 to %n step %c1 iter_args(%u = %u0) -> (tensor<18xf64>) {
    %c = tensor.extract_slice %u[1] [16] [1] : tensor<18xf64> to tensor<16xf64>
    %l = tensor.extract_slice %u[0] [16] [1] : tensor<18xf64> to tensor<16xf64>
    %r = tensor.extract_slice %u[2] [16] [1] : tensor<18xf64> to tensor<16xf64>
    %lr = tensor.add %l, %r : tensor<16xf64>
    %d = tensor.sub %lr, %c : tensor<16xf64>
    %kd = tensor.mul %k, %d : tensor<16xf64>
    %t = tensor.tanh %c : tensor<16xf64>
    %ht = tensor.mul %sh, %t : tensor<16xf64>
    %a = tensor.add %c, %kd : tensor<16xf64>
    %new = tensor.sub %a, %ht : tensor<16xf64>
    %v = tensor.insert_slice %new into %u[1] [16] [1] : tensor<16xf64> into tensor<18xf64>
    loop.yield %v : tensor<18xf64>
  }ATTR
  %sq = tensor.mul %uT, %uT : tensor<18xf64>
  %s = tensor.reduce_sum %sq [0] : tensor<18xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  return %r : f64
}
"""
STENCIL_TYPES = ["tensor<18xf64>", "tensor<16xf64>"]


def stencil_args():
    rng = np.random.default_rng(5)
    return [rng.standard_normal(18), rng.uniform(0.1, 0.4, 16)]


@pytest.mark.parametrize("budget, scheme", [("2KB", ck.Scheme(None, 3)), ("3KB", ck.Scheme(2, 6)),
                                            ("5KB", ck.Scheme(5, None))])
def test_tensor_state_under_budget(budget, scheme, backend):
    """Revolve over iterations, over segments, and segments alone (144 bytes a state)."""
    src = STENCIL.replace("ATTR", f' {{autodiff.checkpoint_memory = "{budget}"}}')
    chosen, m = schemes_of(add_grad(src, "s", STENCIL_TYPES, [0, 1]))
    assert chosen == [scheme]
    args = stencil_args()
    if backend == "jit":  # finite differences of the compiled primal, and compiled = interpreted
        check_grad(src, "s", STENCIL_TYPES, args, wrt=[0, 1], backend=backend)
    else:
        plain = irt.parse(add_grad(STENCIL.replace("ATTR", ""), "s", STENCIL_TYPES, [0, 1]))
        for g, w in zip(irt.interpret(m, "__d", *args), irt.interpret(plain, "__d", *args)):
            np.testing.assert_array_equal(g, w)


SECOND_ORDER = """
func.func @g(%x: f64, %y: f64, %n: index) -> f64 {
  %gx, %gy = autodiff.grad @p(%x, %y, %n) wrt [0, 1] : (f64, f64, index) -> (f64, f64)
  return %gx : f64
}
func.func @h(%x: f64, %y: f64, %n: index, %tx: f64) -> (f64, f64) {
  %r, %t = autodiff.jvp @g(%x, %y, %n) tangents(%tx) wrt [0] : (f64, f64, index, f64) -> (f64, f64)
  return %r, %t : f64, f64
}
func.func @gg(%x: f64, %y: f64, %n: index) -> f64 {
  %d = autodiff.grad @g(%x, %y, %n) wrt [0] : (f64, f64, index) -> f64
  return %d : f64
}
"""


def test_second_order_through_revolve():
    """The generated Revolve code (whiles, ifs, index tapes) is differentiable again."""
    plain = irt.parse(scalar(12) + SECOND_ORDER)
    ck_m = irt.parse(scalar(12, "40") + SECOND_ORDER)
    assert irt.interpret(ck_m, "h", 0.5, 1.3, 12, 1.0) == irt.interpret(plain, "h", 0.5, 1.3, 12, 1.0)
    np.testing.assert_allclose(irt.interpret(ck_m, "gg", 0.5, 1.3, 12), irt.interpret(plain, "gg", 0.5, 1.3, 12),
                               rtol=1e-13)


# -- diagnostics -----------------------------------------------------------------------------
def test_budget_diagnostics():
    text = add_grad(scalar(10, "8"), "p", TYPES, [0])
    with pytest.raises(DiagnosticError, match="budget of 8 bytes is too small for this loop"):
        irt.run_pipeline(irt.parse(text), "ad")
    text = add_grad(scalar(10, "lots"), "p", TYPES, [0])
    with pytest.raises(DiagnosticError, match="must be a memory size"):
        irt.run_pipeline(irt.parse(text), "ad")
    both = SCALAR.replace("NN", "10").replace("UB", "%cN").replace(
        "ATTR", ' {autodiff.checkpoint_memory = "1KB", autodiff.checkpoint = "sqrt"}')
    with pytest.raises(DiagnosticError, match="not both"):
        irt.run_pipeline(irt.parse(add_grad(both, "p", TYPES, [0])), "ad")
    with pytest.raises(DiagnosticError, match="not both"):
        irt.run_pipeline(irt.parse(add_grad(scalar(10), "p", TYPES, [0])),
                         "ad{checkpoint=sqrt checkpoint-memory=1KB}")


# -- peak memory -----------------------------------------------------------------------------
PEAK_SCRIPT = r"""
import sys
import numpy as np
import irtoolkit as irt
from bench.memory import peak_bytes
text = open(sys.argv[1]).read()
attr = '{autodiff.checkpoint = "sqrt"}'
rng = np.random.default_rng(0)
u0, k = rng.standard_normal((64, 64)), rng.uniform(0.2, 1.0, (62, 62))
for spec in sys.argv[2:]:
    src = text.replace(attr, spec).replace("128", "64").replace("126", "62").replace("400", "200")
    g = irt.compile(irt.parse(src))["grad"]
    g(u0, k)
    print(spec, max(peak_bytes(lambda: g(u0, k)) for _ in range(2)))
"""


@pytest.mark.long  # a long run (memory/scaling measurement): IRT_FULL_TESTS=1
def test_peak_memory_within_budget():
    """W6's stencil at 64x64, 200 steps: one state is 32 KB; storing them all with
    their residuals takes 12.6 MB. The peak of the compiled gradient (everything it
    allocates, results included; bench/memory.py) stays within each budget."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), **MALLOC_ENV)
    specs = ["", '{autodiff.checkpoint_memory = "1MB"}', '{autodiff.checkpoint_memory = "2MB"}']
    out = subprocess.run([sys.executable, "-c", PEAK_SCRIPT, os.path.join(ROOT, "bench", "workloads", "w6.mlir"),
                          *specs], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    peaks = [int(line.rsplit(" ", 1)[1]) for line in out.stdout.splitlines()]
    assert peaks[0] > 10 << 20  # unchecked: every state and residual
    assert 0 < peaks[1] <= 1 << 20
    assert peaks[1] < peaks[2] <= 2 << 20
