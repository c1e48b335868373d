"""Layers go one way: data -> solvers -> geometry -> models -> plots -> app; the estimator registry
sits at the bottom, so a lower layer never loads a higher one."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import svmviz.models
from svmviz.registry import registered_estimators


def _loaded_after(module: str) -> list[str]:
    code = f"import sys, {module}; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return out.split()


def test_solvers_load_no_higher_layer():
    loaded = _loaded_after("svmviz.solvers")
    assert [m for m in loaded if m.startswith(("svmviz.export", "svmviz.models", "svmviz.geometry",
                                               "svmviz.plots", "streamlit"))] == []


def test_models_load_neither_export_nor_plots():
    loaded = _loaded_after("svmviz.models")
    assert [m for m in loaded if m.startswith(("svmviz.export", "svmviz.plots", "streamlit"))] == []


def test_every_registered_estimator_is_named_in_models():
    assert sorted(svmviz.models.ESTIMATORS) == sorted(registered_estimators())
    for name, cls in registered_estimators().items():
        assert getattr(svmviz.models, name) is cls
        assert name in svmviz.models.__all__


# ---------------------------------------------------------------- the import graph, read from the source
ROOT = Path(__file__).resolve().parents[1]
#: each part of the library and its rank: a module imports only lower ranks and its own part
#: (function-level imports included: a deferred import is an edge all the same)
RANKS = {"errors": 0, "registry": 1, "limits": 1, "kernels": 1, "data": 2, "solvers": 3, "geometry": 4,
         "models": 5, "plots": 6, "questions": 6, "export": 7, "cli": 8, "__main__": 9}
#: what the private-member rule reads: the library, the app and the benchmarks (tests may reach
#: into a module they test)
CODE = ("svmviz", "svmviz_app", "pages", "app.py", "home.py", "serve.py", "benchmarks")
#: underscored names that are a declared protocol, read across modules on purpose: an estimator
#: class's constraints, read by the page frame as scikit-learn's tools read its own
PROTOCOL = {"_parameter_constraints"}


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str, root: Path) -> bool:
    rel = name.replace(".", "/")
    return (root / f"{rel}.py").exists() or (root / rel / "__init__.py").exists()


def _import_nodes(path: Path, root: Path = ROOT):
    """(node, module, imported names) of every import in ``path``, anywhere in it; a relative
    import is resolved against the module's package."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node, a.name, ()
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            yield node, base, tuple(a.name for a in node.names)


def _imports(path: Path, root: Path = ROOT) -> set[str]:
    """The modules ``path`` imports; ``from svmviz import limits`` names ``svmviz.limits``."""
    found = set()
    for _, module, names in _import_nodes(path, root):
        found.add(module)
        found.update(f"{module}.{n}" for n in names if _is_module(f"{module}.{n}", root))
    return found


def _part(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "svmviz" and len(parts) > 1 else None


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Part of the library -> the parts it imports (svmviz/ read as source, never imported)."""
    graph: dict[str, set[str]] = {}
    for path in sorted((root / "svmviz").rglob("*.py")):
        src = _part(_module_name(path, root)) or "svmviz"
        graph.setdefault(src, set()).update(p for p in map(_part, _imports(path, root)) if p and p != src)
    return graph


def _backward_edges(graph) -> list[str]:
    return [f"{a} -> {b}" for a, targets in sorted(graph.items()) for b in sorted(targets)
            if a != "svmviz" and RANKS[b] >= RANKS[a] and b != a]


def test_every_part_of_the_library_has_a_rank():
    assert sorted(import_graph()) == sorted({"svmviz", *RANKS})


def test_imports_go_only_down_the_layers():
    graph = import_graph()
    assert _backward_edges(graph) == []
    assert graph["svmviz"] <= {"errors"}   # the package itself: the errors, nothing that loads NumPy


def test_the_scan_sees_a_deferred_import_up_the_layers(tmp_path):
    (tmp_path / "svmviz" / "solvers").mkdir(parents=True)
    (tmp_path / "svmviz" / "export").mkdir()
    (tmp_path / "svmviz" / "solvers" / "x.py").write_text(
        "from svmviz.errors import DataError\n\n\ndef f():\n    from svmviz import export\n    return export\n")
    (tmp_path / "svmviz" / "export" / "__init__.py").write_text("")
    assert _backward_edges(import_graph(tmp_path)) == ["solvers -> export"]


def test_nothing_in_the_library_imports_streamlit():
    users = [_module_name(p) for p in sorted((ROOT / "svmviz").rglob("*.py"))
             if any(m.split(".")[0] == "streamlit" for m in _imports(p))]
    assert users == []


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(path: Path, root: Path = ROOT) -> list[str]:
    """Where ``path`` uses a private member of another module of the project: ``from m import _x``,
    ``m._x`` for a module ``m`` of ours, a private module (``_svm_tree_build``) imported from
    outside its package, or ``obj._x`` on anything but ``self``/``cls`` in the app (a page calling
    ``model._trace_scale()``)."""
    here = _module_name(path, root)
    found, modules = [], {}
    for node, module, names in _import_nodes(path, root):
        if not _is_module(module, root):
            continue
        for full in [module] + [f"{module}.{n}" for n in names if _is_module(f"{module}.{n}", root)]:
            pkg = ".".join(p for p in full.split(".")[:-1])
            if _private(full.rpartition(".")[2]) and not here.startswith(pkg + "."):
                found.append(f"line {node.lineno}: private module {full}")
        for n in names:
            if _private(n) and not _is_module(f"{module}.{n}", root):
                found.append(f"line {node.lineno}: from {module} import {n}")
        if isinstance(node, ast.Import):
            for a in node.names:
                modules[a.asname or a.name.split(".")[0]] = a.name
        else:
            modules.update((a.asname or a.name, f"{module}.{a.name}") for a in node.names
                           if _is_module(f"{module}.{a.name}", root))
    app = here.split(".")[0] in ("svmviz_app", "pages", "app", "home")
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in PROTOCOL:
            value = node.value
            if isinstance(value, ast.Name) and value.id in modules:
                found.append(f"line {node.lineno}: {ast.unparse(node)} (private in {modules[value.id]})")
            elif app and not (isinstance(value, ast.Name) and value.id in ("self", "cls")):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def _code_files(root: Path = ROOT):
    for part in CODE:
        p = root / part
        yield from (sorted(p.rglob("*.py")) if p.is_dir() else [p])


def test_no_module_uses_a_private_member_of_another():
    found = {str(p.relative_to(ROOT)): f for p in _code_files() if (f := private_uses(p))}
    assert found == {}


def test_the_private_scan_finds_each_kind(tmp_path):
    (tmp_path / "svmviz" / "models").mkdir(parents=True)
    (tmp_path / "svmviz" / "models" / "__init__.py").write_text("")
    (tmp_path / "svmviz" / "models" / "_tree_build.py").write_text("def _grow(): pass\n")
    (tmp_path / "svmviz" / "models" / "tree.py").write_text("from svmviz.models import _tree_build\n")
    (tmp_path / "pages").mkdir()
    page = tmp_path / "pages" / "x.py"
    page.write_text("from svmviz.models import _tree_build\nfrom svmviz.models._tree_build import _grow\n"
                    "_tree_build._grow()\nmodel._trace_scale()\nself._fine = 1\n")
    assert private_uses(tmp_path / "svmviz" / "models" / "tree.py", tmp_path) == []
    assert private_uses(page, tmp_path) == [
        "line 1: private module svmviz.models._tree_build", "line 2: private module svmviz.models._tree_build",
        "line 2: from svmviz.models._tree_build import _grow", "line 3: _tree_build._grow (private in "
        "svmviz.models._tree_build)", "line 4: model._trace_scale"]


def test_a_test_that_launches_chromium_must_be_marked_browser(tmp_path):
    # conftest refuses to run a suite in which such a test is unmarked ("not browser" would start it)
    from types import SimpleNamespace

    from conftest import launches_chromium

    plain = tmp_path / "test_plain.py"
    plain.write_text("def test_x(page):\n    pass\n")   # ``page`` a parameter here, not the fixture
    own = tmp_path / "test_own.py"
    own.write_text("def drive():\n    from playwright.sync_api import sync_playwright\n")
    assert launches_chromium(SimpleNamespace(fixturenames=["page", "browser"], path=plain))
    assert not launches_chromium(SimpleNamespace(fixturenames=["page"], path=plain))
    assert launches_chromium(SimpleNamespace(fixturenames=[], path=own))


def test_every_package_names_its_public_parts_explicitly():
    # explicit imports and __all__, never a namespace filled at run time (pkgutil, globals().update):
    # what a package offers is readable in its __init__.py, by people and by IDEs
    import importlib

    for init in sorted([*(ROOT / "svmviz").rglob("__init__.py"), ROOT / "svmviz_app" / "__init__.py"]):
        name = _module_name(init)
        tree = ast.parse(init.read_text(encoding="utf-8"))
        assert "pkgutil" not in _imports(init) and "globals()" not in ast.unparse(tree), name
        declared = [n for n in tree.body if isinstance(n, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]
        assert declared, f"{name} has no __all__"
        for public in ast.literal_eval(declared[0].value):
            assert _is_module(f"{name}.{public}", ROOT) or hasattr(importlib.import_module(name), public), \
                f"{name}.__all__ names {public!r}, which it does not have"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle of ``graph`` once, starting at its smallest module."""
    found = []

    def walk(start, node, path):
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                found.append(path)
            elif nxt > start and nxt not in path:
                walk(start, nxt, path + [nxt])

    for start in sorted(graph):
        walk(start, start, [start])
    return found


def app_import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module of ``svmviz_app`` -> the modules of ``svmviz_app`` it imports, deferred imports too."""
    graph = {}
    for path in sorted((root / "svmviz_app").rglob("*.py")):
        name = _module_name(path, root)
        graph[name] = {m for m in _imports(path, root) if m.startswith("svmviz_app.") and m != name}
    return graph


def test_the_app_modules_import_no_circle():
    # a circle makes the import order matter: a module half-loaded when the other one asks for it
    assert _cycles(app_import_graph()) == []


def test_the_circle_scan_sees_a_deferred_import(tmp_path):
    (tmp_path / "svmviz_app").mkdir()
    (tmp_path / "svmviz_app" / "a.py").write_text("from svmviz_app import b\n")
    (tmp_path / "svmviz_app" / "b.py").write_text("def f():\n    from svmviz_app.a import g\n    return g\n")
    assert _cycles(app_import_graph(tmp_path)) == [["svmviz_app.a", "svmviz_app.b"]]
