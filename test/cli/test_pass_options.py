"""Pass options as declared (dataclass fields with help), and the named
pipelines that forward them: every option documented, no two forwarded
options with one name, errors located in the pipeline text."""

from __future__ import annotations

import pytest

from irtoolkit.context import PASSES, PIPELINE_OPTIONS, PIPELINES, pass_class
from irtoolkit.diagnostics import DiagnosticError
from irtoolkit.pipeline import build_passes, pass_options, pipeline_options, pipeline_text


@pytest.mark.parametrize("name", sorted(PASSES))
def test_every_option_has_help_and_a_kebab_name(name):
    for o in pass_options(pass_class(name)):
        assert o.help, f"{name}: option {o.name} has no help text"
        assert "_" not in o.name
        assert "|" not in o.expected() and "None" not in o.expected()


@pytest.mark.parametrize("name", sorted(PIPELINE_OPTIONS))
def test_named_pipelines_forward_to_their_own_passes(name):
    passes = [p.strip() for p in PIPELINES[name][0].split(",")]
    assert set(PIPELINE_OPTIONS[name]) <= set(passes)
    names = [o.name for o in pipeline_options(name)]
    assert len(names) == len(set(names)), f"{name}: forwarded options clash: {names}"


def test_forwarded_options_reach_their_pass():
    passes = build_passes("lower-to-llvm{blas=false blas-threshold=1 parallel=false}")
    by_name = {p.name: p for p in passes}
    assert by_name["lower-tensor-to-loop"].blas is False
    assert by_name["lower-tensor-to-loop"].blas_threshold == 1
    assert by_name["lower-loop-to-cf"].parallel is False
    assert "lower-tensor-to-loop{global-threshold=16 blas=false blas-threshold=1 conv-unroll=-1}" in pipeline_text(passes)


@pytest.mark.parametrize(("spec", "column", "message"), [
    ("cse, ad{checkpoint=sqrtt}", 20, "did you mean 'sqrt'?"),
    ("builtin.module(func.func(cse), inlin)", 32, "did you mean 'inline'?"),
    ("inline{max-iterations=3 max-iterations=4}", 25, "option 'max-iterations' of pass 'inline' is given twice"),
    ("tensor-fuse{fuse=yes}", 18, "expected true or false"),
    ("lower-tensor-to-loop{blas}", 1, None),  # a flag alone is true
])
def test_errors_point_into_the_pipeline(spec, column, message):
    if message is None:
        assert build_passes(spec)[0].blas is True
        return
    with pytest.raises(DiagnosticError) as err:
        build_passes(spec)
    diag = err.value.diagnostics[0]
    assert (diag.location.file, diag.location.line, diag.location.col) == ("<pass-pipeline>", 1, column)
    assert message in diag.message
