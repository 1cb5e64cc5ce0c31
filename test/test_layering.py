"""The layering of docs/architecture.md, checked on the imports (function-local
ones too): the runtime only translates, optimizes, emits and loads -- it imports
no pass; passes and dialects do not import the runtime."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


@pytest.mark.parametrize("layer,forbidden", [
    ("irtoolkit/runtime", "irtoolkit.passes"),
    ("passes", "irtoolkit.runtime"),
    ("dialects", "irtoolkit.runtime"),
])
def test_a_layer_does_not_import_what_it_must_not(layer, forbidden):
    offenders = sorted(f"{p.relative_to(ROOT)}: {name}"
                       for p in (ROOT / layer).rglob("*.py") for name in _imports(p)
                       if name == forbidden or name.startswith(forbidden + "."))
    assert not offenders, offenders
