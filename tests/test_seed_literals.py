"""Every seed offset comes from ``recur.core.seeds`` (and a count of seeds that a
result must hold for from ``recur.core.bars``): no module of the library or of
``benchmarks/`` types one, and the page's trainer (``_static/cell_train.js``) adds the
registry's own numbers.

What counts as a typed offset, found in the syntax tree:

- a sum (``+`` or ``-``) of a seed (a name or attribute such as ``seed``,
  ``cfg.seed``, ``attempt_seed``) and a number, ``seed + 2_000_003``, or a product
  with a number in it, ``seed + 1000 * attempt``;
- a number given to a seed argument, ``seed=2024``, or summed there,
  ``seed=5000 + n_bits``;
- a number as a seed parameter's default or set to a seed-named constant
  (``SEEDS_NEEDED = 19``: a count of seeds is a bar).

Zero may be given as a seed: the first seed, the library's default, which a timing or
an example uses; a reported count takes its seeds from the registry. :data:`ALLOWED`
lists the other numbers given as a seed and why. The book's notebooks are scanned too
(their code cells): a page's figures draw their sums from the registry's seeds. The
tests of the library are not scanned: they pass seeds of their own to check the code,
never to report."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

from recur.core import seeds

ROOT = Path(__file__).resolve().parent.parent
SCANNED = [ROOT / "src" / "recur", ROOT / "benchmarks"]
REGISTRY = {ROOT / "src" / "recur" / "core" / name for name in ("seeds.py", "bars.py")}
STATIC = ROOT / "book" / "_extra" / "_static"
TRAINER = STATIC / "cell_train.js"

# (module, seed parameter, number given as its default): why it is no offset
ALLOWED = {
    ("src/recur/views/explorers.py", "seed", 1): (
        "the seed the page's trainer shows first, which the reader changes"
    ),
}

# The page trainer's SEED_OFFSETS, by the registry name each mirrors
PAGE_OFFSETS = {
    "heldoutPairs": "HELDOUT_PAIRS",
    "batches": "PAGE_BATCHES",
    "restartStride": "RESTART_STRIDE",
}


def _names_a_seed(name: str) -> bool:
    return bool({"seed", "seeds"} & set(name.lower().split("_")))


def _is_seed(node: ast.AST) -> bool:
    """``seed``, ``cfg.seed``, ``attempt_seed``, ``seeds[k]``."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Name):
        return _names_a_seed(node.id)
    return isinstance(node, ast.Attribute) and _names_a_seed(node.attr)


def _number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _terms(node: ast.AST) -> list[ast.AST]:
    """The terms of a sum: ``a + b - c`` -> [a, b, c]."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        return _terms(node.left) + _terms(node.right)
    return [node]


def _has_number(node: ast.AST) -> bool:
    return any(_number(n) for n in ast.walk(node))


def _sum_with_a_number(node: ast.AST) -> bool:
    terms = _terms(node)
    return len(terms) > 1 and any(_has_number(t) for t in terms)


def _given_a_number(node: ast.AST | None) -> bool:
    """A number given as a seed, or summed into one; zero alone is allowed."""
    if node is None:
        return False
    if _number(node):
        return node.value != 0
    return _sum_with_a_number(node)


def typed_offsets(source: str, module: str = "") -> list[str]:
    """Each seed offset typed in ``source`` (a module's text): ``line: code``."""
    found = []

    def flag(node: ast.AST) -> None:
        found.append(f"{module}:{node.lineno}: {ast.unparse(node)}")

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
            terms = _terms(node)
            if any(map(_is_seed, terms)) and any(map(_has_number, terms)):
                flag(node)
        elif isinstance(node, ast.keyword) and node.arg and _names_a_seed(node.arg):
            if _given_a_number(node.value):
                flag(node.value)
        elif isinstance(node, ast.arguments):
            given = node.posonlyargs + node.args
            last = given[len(given) - len(node.defaults) :]
            pairs = list(zip(last, node.defaults, strict=True))
            pairs += list(zip(node.kwonlyargs, node.kw_defaults, strict=True))
            for arg, default in pairs:
                if not _names_a_seed(arg.arg) or not _given_a_number(default):
                    continue
                if (module, arg.arg, getattr(default, "value", None)) not in ALLOWED:
                    flag(default)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = [t for t in targets if isinstance(t, ast.Name)]
            if any(_names_a_seed(t.id) for t in named) and _given_a_number(node.value):
                flag(node)
    return sorted(set(found))


def _modules() -> list[Path]:
    return sorted(
        path
        for folder in SCANNED
        for path in folder.rglob("*.py")
        if path not in REGISTRY
    )


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_types_a_seed_offset(path):
    module = str(path.relative_to(ROOT))
    assert typed_offsets(path.read_text(), module) == []


NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))


def notebook_offsets(nb, name: str = "") -> list[str]:
    """Each seed offset typed in a notebook's code cells (IPython's ``%`` and ``!``
    lines blanked): ``name[cell]:line: code``."""
    found = []
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        lines = cell.source.splitlines()
        code = "\n".join("" if x.lstrip().startswith(("%", "!")) else x for x in lines)
        found += typed_offsets(code, f"{name}[{k}]")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_notebook_types_a_seed_offset(path):
    assert notebook_offsets(nbformat.read(path, as_version=4), path.name) == []


def test_a_seed_typed_in_a_notebook_is_caught():
    """Chapter 6's held-out sums once came from a typed ``seed=11``."""
    nb = nbformat.v4.new_notebook()
    typed = "random_batch(2000, 8, seed=11)"
    nb.cells += [
        nbformat.v4.new_markdown_cell(typed),
        nbformat.v4.new_code_cell(f"%time x = 1\nheld = {typed}"),
    ]
    assert notebook_offsets(nb, "page") == ["page[1]:2: 11"]


@pytest.mark.parametrize(
    "code",
    [
        "x = f(seed=seed + 2_000_003)",
        "heldout = random_batch(n, 8, seed=cfg.seed + 1_000_003)",
        "x = [seed + 1000 * attempt for attempt in range(3)]",
        "x = g(seed=10_000 + seed + n_bits)",
        "x = g(seed=5000 + n_bits)",
        "x = g(seed=2024)",
        "x = g(sums_seed=9_000_000)",
        "def f(seed=2024):\n    pass",
        "SEEDS_NEEDED = 19",
        "x = attempt_seed - 7",
    ],
)
def test_a_typed_offset_is_caught(code):
    assert typed_offsets(code) != []


@pytest.mark.parametrize(
    "code",
    [
        "x = f(seed=seed + CHECK_LONG_CHAINS)",
        "x = g(seed=CHOICE_SUMS + n_bits)",
        "x = g(seed=0)",
        "def f(seed: int = 0, sums_seed=REPORT_SUMS):\n    pass",
        "x = [seed + RESTART_STRIDE * attempt for attempt in range(3)]",
        "n = len(seeds) * 2",
        "x = g(seed=seed + n_bits)",
    ],
)
def test_a_named_offset_passes(code):
    assert typed_offsets(code) == []


def test_every_allowed_number_is_still_given():
    """An exception that nothing needs any more is taken out of :data:`ALLOWED`."""
    for module, arg, value in ALLOWED:
        tree = ast.parse((ROOT / module).read_text())
        defaults = [
            (a.arg, getattr(d, "value", None))
            for n in ast.walk(tree)
            if isinstance(n, ast.arguments)
            for a, d in zip(
                n.args[len(n.args) - len(n.defaults) :], n.defaults, strict=True
            )
        ]
        assert (arg, value) in defaults, (module, arg, value)


def page_offsets(text: str) -> dict:
    """The page trainer's ``SEED_OFFSETS = { name: number, ... }``."""
    block = re.search(r"const SEED_OFFSETS = \{([^}]*)\}", text)
    assert block, "cell_train.js declares no SEED_OFFSETS"
    pairs = re.findall(r"(\w+)\s*:\s*([\d_]+)", block.group(1))
    return {name: int(number) for name, number in pairs}


def page_typed_offsets(text: str) -> list[str]:
    """Lines of a page script that add a number to a seed outside SEED_OFFSETS
    (comments left out)."""
    seed, number = r"\b\w*seed\w*\b", r"\b\d[\d_]*\b"
    typed = re.compile(
        rf"{seed}\s*[-+]\s*{number}|{number}\s*[-+]\s*{seed}"
        rf"|{seed}\s*[-+]\s*\w+\s*\*\s*{number}",
        re.IGNORECASE,
    )
    found = []
    for k, line in enumerate(text.splitlines(), start=1):
        code = line.split("//")[0]
        if "SEED_OFFSETS = {" not in code and typed.search(code):
            found.append(f"{k}: {line.strip()}")
    return found


def test_the_page_trainer_adds_the_registrys_offsets():
    """The page draws the held-out pairs, its batches and its restarts as the
    registry says (its held-out pairs mirror recur.training.loop.heldout_pairs)."""
    offsets = page_offsets(TRAINER.read_text())
    assert offsets == {
        name: getattr(seeds, registry) for name, registry in PAGE_OFFSETS.items()
    }


@pytest.mark.parametrize(
    "path",
    sorted(STATIC.glob("*.js")),
    ids=lambda p: p.name,
)
def test_no_page_script_types_a_seed_offset(path):
    assert page_typed_offsets(path.read_text()) == []


def test_a_page_offset_that_differs_or_is_typed_is_caught():
    text = TRAINER.read_text()
    assert "heldoutPairs: 1000003," in text
    planted = text.replace("heldoutPairs: 1000003,", "heldoutPairs: 1000004,")
    assert page_offsets(planted) != page_offsets(text)
    typed = text.replace("seed + SEED_OFFSETS.batches", "seed + 7")
    assert page_typed_offsets(typed) != []
    restart = "trainOnce(seed + 1000 * attempt, report)"
    assert page_typed_offsets(restart) != []
    assert page_typed_offsets("trainOnce(seed + SEED_OFFSETS.restartStride * k)") == []


def test_the_procedures_offsets_differ_from_every_test_sum_offset():
    procedure = [
        seeds.HELDOUT_PAIRS,
        seeds.CHECK_LONG_CHAINS,
        seeds.CHECK_DELAYED,
        seeds.CHECK_RANDOM,
    ]
    tested = {s.sums_offset for s in seeds.REGISTRY} | {seeds.INJECTION_SUMS}
    assert len(set(procedure)) == len(procedure)
    assert not set(procedure) & tested
