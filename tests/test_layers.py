"""The library's layers: each module imports only from its own layer and those below it,
views never reach training, a chapter never imports another chapter, no import hides
inside a function, no module is long (nor any of the page's own scripts). The scripts
of ``benchmarks/`` sit above the library: they may import any of it, the library never
imports them, and no script imports the tests' own modules."""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).parent.parent / "src" / "recur"
SCRIPTS = Path(__file__).parent.parent / "benchmarks"
# the page's own scripts (its vendor/ and the built models/ are not the book's code)
STATIC = Path(__file__).parent.parent / "book" / "_extra" / "_static"
TESTS_OWN = ("conftest", "fake_accelerator")  # the tests' modules, not a library

# Each layer and the layers it may import from (itself included).
MAY_IMPORT = {
    "core": {"core"},
    "models": {"core", "models"},
    "training": {"core", "models", "training"},
    "chapters": {"core", "models", "training", "chapters", "views.text"},
    "studies": {"core", "models", "training", "chapters", "studies", "views.text"},
    "views": {"core", "models", "views"},
    # what each page glues, from the chapters, the studies and the views
    "pages": {"core", "models", "training", "chapters", "studies", "views", "pages"},
}
MAX_LINES = 400


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if p.name != "__init__.py")


def _layer(path: Path) -> str:
    return path.relative_to(SRC).parts[0]


def _recur_imports(tree: ast.AST) -> list[tuple[ast.AST, str]]:
    """Every ``recur.X...`` module a module imports, with the node that imports it."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("recur"):
            names = [a.name for a in node.names] if node.module == "recur" else [""]
            found += [(node, f"{node.module}.{n}".rstrip(".")) for n in names]
        elif isinstance(node, ast.Import):
            found += [(node, a.name) for a in node.names if a.name.startswith("recur")]
    return found


def _allowed(layer: str, target: str) -> bool:
    """Whether ``layer`` may import the module ``target`` (``recur.views.text``)."""
    parts = target.split(".")[1:]
    return parts[0] in MAY_IMPORT[layer] or ".".join(parts[:2]) in MAY_IMPORT[layer]


def _chapter(module: str) -> str:
    """The chapter a ``chapters`` module belongs to: ``ch6`` for ``ch6_check``."""
    return module.split("_")[0]


def other_chapters(path: Path) -> list[str]:
    """The modules of other chapters that a ``chapters`` module imports: a chapter's
    pieces (``ch6_check`` beside ``ch6_act_ut``) may share, chapters may not."""
    if path.parent.name != "chapters":
        return []
    own = _chapter(path.stem)
    return [
        target
        for _, target in _recur_imports(ast.parse(path.read_text()))
        if target.startswith("recur.chapters.")
        and _chapter(target.split(".")[2]) != own
    ]


def wrong_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [
        target
        for _, target in _recur_imports(tree)
        if not _allowed(_layer(path), target)
    ]


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_a_module_imports_only_its_own_layer_and_those_below(path):
    assert not wrong_imports(path), f"{path.name} imports {wrong_imports(path)}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_a_chapter_never_imports_another_chapter(path):
    """What two chapters share lives in a layer below them (``training``)."""
    assert not other_chapters(path), f"{path.name} imports {other_chapters(path)}"


def test_the_chapter_check_refuses_another_chapter_and_allows_its_own(tmp_path):
    module = tmp_path / "chapters" / "ch7_pondernet.py"
    module.parent.mkdir()
    module.write_text("from recur.chapters.ch6_act_ut import train_book_act\n")
    assert other_chapters(module) == ["recur.chapters.ch6_act_ut"]
    module.write_text("from recur.chapters.ch7_costs import saved_bytes\n")
    assert other_chapters(module) == []
    module.write_text("from recur.training.ut_recipe import BOOK_ACT\n")
    assert other_chapters(module) == []


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_no_library_import_inside_a_function(path):
    """An import inside a function is how a cycle gets hidden; none of recur's own."""
    tree = ast.parse(path.read_text())
    inner = [
        target
        for fn in ast.walk(tree)
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
        for _, target in _recur_imports(fn)
    ]
    assert not inner, f"{path.name} imports {inner} inside a function"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_no_module_is_longer_than_400_lines(path):
    assert len(path.read_text().splitlines()) <= MAX_LINES


@pytest.mark.parametrize("path", sorted(STATIC.glob("*.js")), ids=lambda p: p.name)
def test_no_page_script_is_longer_than_400_lines(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{path.name} has {lines} lines"


def test_every_module_sits_in_a_layer():
    assert {_layer(p) for p in _modules()} <= set(MAY_IMPORT)


def test_the_check_refuses_a_view_that_trains_and_a_model_that_plots():
    """The check itself can fail: each of these imports is refused in its layer."""
    for layer, line in [
        ("views", "from recur.training.loop import train"),
        ("views", "from recur.chapters.ch6_act_ut import train_book_act"),
        ("models", "import recur.views.plots_exact"),
        ("models", "from recur.training.config import TrainConfig"),
        ("chapters", "from recur.views.plots_exact import plot_training"),
        ("core", "from recur import models"),
    ]:
        imports = _recur_imports(ast.parse(line))
        assert not all(_allowed(layer, t) for _, t in imports), line


def _scripts() -> list[Path]:
    return sorted(SCRIPTS.glob("*.py"))


def script_names() -> set[str]:
    return {p.stem for p in _scripts()}


def library_imports_of_scripts(path: Path) -> list[str]:
    """The scripts of ``benchmarks/`` (or the tests' modules) that a module imports."""
    tree = ast.parse(path.read_text())
    names = script_names() | set(TESTS_OWN)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            if (node.module or "").split(".")[0] in names:
                found.append(node.module)
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_the_library_never_imports_a_script(path):
    assert not library_imports_of_scripts(path)


@pytest.mark.parametrize("path", _scripts(), ids=lambda p: p.name)
def test_a_script_imports_no_module_of_the_tests(path):
    """What a script shares with the tests (the Chromium they run) lives in the
    library (``recur.core.chromium``), not in ``tests/conftest.py``."""
    tree = ast.parse(path.read_text())
    imported = [
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    ]
    imported += [
        n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
    ]
    assert not [m for m in imported if m.split(".")[0] in TESTS_OWN], imported


def test_the_script_checks_see_a_planted_import(tmp_path):
    module = tmp_path / "planted.py"
    module.write_text("import last_run\nfrom conftest import chromium_path\n")
    assert library_imports_of_scripts(module) == ["last_run", "conftest"]
