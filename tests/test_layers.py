"""The package's import graph: layers that only point down, no circles, no private names
used across modules.

The graph is read from the source with ``ast``, every import counted (those inside
functions and under ``TYPE_CHECKING`` too), so the test sees each import the code can
make, not only those a test run happens to execute.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import cpsudoku

ROOT = Path(cpsudoku.__file__).parent

#: The layers, bottom first. A module may import modules of its own layer (its own
#: package, without a circle) and of lower layers, never of a higher one. The top-level
#: modules (``api``, ``version``) are layers of their own; ``cpsudoku`` itself (the
#: package's ``__init__``) and ``__main__`` sit on top.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("version",),
    ("model",),
    ("draw",),
    ("canon",),
    ("encode",),
    ("engines",),
    ("rating",),
    ("generate",),
    ("evidence",),
    ("datasets",),
    ("bench",),
    ("api",),
    ("serve",),
    ("cli",),
    ("", "__main__"),
)


def _layer(module: str) -> int:
    """The rank of ``cpsudoku.X...`` in :data:`LAYERS` (its first name after the root)."""
    parts = module.split(".")
    head = parts[1] if len(parts) > 1 else ""
    for rank, names in enumerate(LAYERS):
        if head in names:
            return rank
    raise AssertionError(f"{module} is in no layer: add its folder to LAYERS")


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _modules() -> dict[str, tuple[Path, ast.Module]]:
    return {
        _name(path): (path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
        for path in sorted(ROOT.rglob("*.py"))
    }


def _imports(module: str) -> Iterator[tuple[str, list[str], int]]:
    """``(imported module, names taken from it, line)`` for every import of ``module``."""
    path, tree = _modules()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            names = [alias.name for alias in node.names]
            # "from cpsudoku.datasets import bulk_logic" imports a module.
            submodules = [n for n in names if f"{target}.{n}" in _modules()]
            for sub in submodules:
                yield f"{target}.{sub}", [], node.lineno
            rest = [n for n in names if n not in submodules]
            if rest or not submodules:
                yield target, rest, node.lineno


def _graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    mods = _modules()
    return {m: {t for t, _, _ in _imports(m) if t in mods and t != m} for m in mods}


def test_every_module_is_in_a_layer() -> None:
    for module in _modules():
        _layer(module)


def test_imports_only_point_down() -> None:
    upward = []
    for module, targets in _graph().items():
        for target in targets:
            if _layer(target) > _layer(module):
                upward.append(f"{module} imports {target}")
    assert not upward, "imports that point up:\n" + "\n".join(sorted(upward))


def test_no_import_circles() -> None:
    graph = _graph()
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []
    circles: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            # A package's __init__ importing its own modules is how it re-exports them.
            if nxt.startswith(node + "."):
                continue
            if state.get(nxt) == 1:
                circles.append(" -> ".join([*path[path.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert not circles, "import circles:\n" + "\n".join(circles)


def _companion(module: str, target: str, name: str) -> bool:
    """True for a compiled extension taken by its public twin: ``engines.native`` takes
    ``engines._native`` (C source, so it is no module of the graph)."""
    package, _, base = module.rpartition(".")
    return target == package and name == f"_{base}" and f"{target}.{name}" not in _modules()


def test_no_private_names_across_modules() -> None:
    crossing = []
    for module in _modules():
        for target, names, line in _imports(module):
            if not target.startswith("cpsudoku") or target == module:
                continue
            for name in names:
                if _companion(module, target, name):
                    continue
                if name.startswith("_") and not name.startswith("__"):
                    crossing.append(f"{module}:{line} takes {target}.{name}")
    # Attribute access on an imported module: "bulk_logic._tables".
    for module, (_, tree) in _modules().items():
        aliases = {
            alias.asname or alias.name.rpartition(".")[2]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cpsudoku")
            for alias in node.names
            if f"{node.module}.{alias.name}" in _modules()
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                crossing.append(f"{module}:{node.lineno} uses {node.value.id}.{node.attr}")
    assert not crossing, "private names used across modules:\n" + "\n".join(crossing)
