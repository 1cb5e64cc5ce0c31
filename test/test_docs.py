"""docs/ is generated from the definitions (irtoolkit/docs.py) and must be current."""

from __future__ import annotations

import pytest

from irtoolkit import docs


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return docs.generate()


def test_committed_docs_are_current(pages):
    stale = docs.stale_pages(pages)
    assert not stale, f"docs/ is stale ({', '.join(stale)}): run `{docs.REGENERATE}` and commit docs/"


def test_staleness_is_detected(pages, tmp_path):
    for rel, text in pages.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    assert docs.stale_pages(pages, tmp_path) == []
    (tmp_path / "dialects/tensor.md").write_text(pages["dialects/tensor.md"].replace("tensor.matmul", "tensor.mm"))
    (tmp_path / "dialects/gone.md").write_text("an op page of a dialect that no longer exists\n")
    (tmp_path / "passes.md").unlink()
    assert docs.stale_pages(pages, tmp_path) == ["dialects/tensor.md", "passes.md", "dialects/gone.md"]


def test_every_op_and_pass_is_documented(pages):
    from irtoolkit.context import available_passes, dialect_factory

    for name, *_ in docs.DIALECT_PAGES:
        page = pages[f"dialects/{name}.md"]
        for op in dialect_factory(name)().operations:
            assert f"\n## {op.name}\n" in page
    for name in available_passes():
        assert f"\n## {name}\n" in pages["passes.md"]
    assert "`blas` | `<bool>` | `true`" in pages["passes.md"]
    assert "### `irtoolkit.compile(" in pages["python-api.md"]
