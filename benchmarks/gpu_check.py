"""``make gpu-check``: run the book on a GPU and say what changed.

On a machine with CUDA: execute every chapter with nbclient (``RECUR_DEVICE`` unset, so
the chapters pick CUDA), run the unit tests with their models on the real device
(``RECUR_REAL_DEVICE=1`` switches off the pretend accelerator of ``tests/conftest.py``),
and write ``book/data/gpu_check.jsonl``: the machine (GPU, torch, CUDA), one line per
chapter (seconds, error if any, every glued value beside the CPU build's value from
``book/data/glue_cpu.json``), the test summary, and the verdict.

The check fails if a chapter raises, a test fails, or a glued verdict (a name ending
in ``_ok``: a success the page states) differs from the CPU build's: a success that
became a failure changes what the page says.

``--reference`` (on the CPU, after ``make book``) writes ``book/data/glue_cpu.json``
from the executed chapters in ``_build/jupyter_execute``. myst-nb is not needed on the
GPU machine: ``benchmarks/stand_in/myst_nb`` records the glued values instead.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import torch

from last_run import recorded
from recur.core.machine import write_machine_record

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
REFERENCE = BOOK / "data" / "glue_cpu.json"
STAND_IN = Path(__file__).resolve().parent / "stand_in"


def chapters() -> list[Path]:
    return sorted(BOOK.glob("*.ipynb"))


def glued_in_build(executed: Path) -> dict[str, str]:
    """name -> text of every value glued in one chapter of the build (myst-nb writes
    them beside the executed notebook, ``NAME.glue.json``)."""
    path = executed.with_suffix(".glue.json")
    if not path.exists():
        return {}
    outputs = json.loads(path.read_text())
    return {name: out["data"].get("text/plain", "") for name, out in outputs.items()}


def write_reference() -> None:
    executed = ROOT / "_build" / "jupyter_execute" / "book"
    reference = {p.stem: glued_in_build(executed / p.name) for p in chapters()}
    REFERENCE.write_text(json.dumps(reference, indent=1, sort_keys=True) + "\n")
    write_machine_record(REFERENCE, written_by="make glue-reference (the CPU build)")
    print(f"wrote {REFERENCE.relative_to(ROOT)}: {sum(map(len, reference.values()))}")


def run_chapter(path: Path, timeout: int) -> dict:
    """Execute one chapter in a fresh kernel; its seconds, error and glued values."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    log = ROOT / "_build" / f"glue_{path.stem}.jsonl"
    log.parent.mkdir(exist_ok=True)
    log.unlink(missing_ok=True)
    os.environ["GLUE_LOG"] = str(log)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": BOOK}},
    )
    start, error = time.perf_counter(), None
    try:
        client.execute()
    except CellExecutionError as err:
        error = str(err).strip().splitlines()[-1][:300]
    except Exception as err:  # a dead kernel, a timeout
        error = f"{type(err).__name__}: {err}"[:300]
    finally:
        os.environ.pop("GLUE_LOG", None)
    seconds = time.perf_counter() - start
    glued = {}
    if log.exists():
        for line in log.read_text().splitlines():
            row = json.loads(line)
            glued[row["name"]] = row["value"]
    return {
        "chapter": path.stem,
        "seconds": round(seconds, 1),
        "error": error,
        "glued": glued,
    }


def run_tests(jobs: int) -> dict:
    """The unit and property tests (not nbval, not the browser) on the real device."""
    env = os.environ | {"RECUR_REAL_DEVICE": "1", "OMP_NUM_THREADS": "1"}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "tests",
        "-q",
        "-p",
        "no:cacheprovider",
        "--ignore=tests/test_notebooks.py",
        "--ignore=tests/test_browser.py",
    ]
    if jobs > 1:
        command += ["-n", str(jobs), "--dist", "loadfile"]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    lines = done.stdout.strip().splitlines()
    failed = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
    return {
        "tests": lines[-1] if lines else done.stderr[-300:],
        "returncode": done.returncode,
        "failed": failed,
        "seconds": round(time.perf_counter() - start, 1),
    }


def compare(row: dict, reference: dict) -> tuple[dict, list[str]]:
    """Each glued value beside the CPU build's; the verdicts (``*_ok``) that differ."""
    cpu = reference.get(row["chapter"], {})
    both = {
        name: {"gpu": value, "cpu": cpu.get(name)}
        for name, value in row["glued"].items()
    }
    changed = [
        f"{row['chapter']}: {name} was {v['cpu']} on the CPU, {v['gpu']} here"
        for name, v in both.items()
        if name.endswith("_ok") and v["cpu"] is not None and v["cpu"] != v["gpu"]
    ]
    return both, changed


def verdict(lines: list[dict], reference: dict) -> tuple[list[dict], dict]:
    """Compare every chapter line with the reference; the lines and the verdict."""
    problems = []
    for row in lines:
        if "chapter" in row:
            glued = {
                k: (v["gpu"] if isinstance(v, dict) else v)
                for k, v in row["glued"].items()
            }
            row["glued"], changed = compare(row | {"glued": glued}, reference)
            problems += changed
            if row["error"]:
                problems.append(f"{row['chapter']}: {row['error']}")
        elif "tests" in row:
            problems += [f"tests: {line}" for line in row["failed"]]
            if row["returncode"] and not row["failed"]:
                problems.append(f"tests: exit {row['returncode']}: {row['tests']}")
    return lines, {"check": "failed" if problems else "passed", "problems": problems}


def recompare(path: Path) -> int:
    """Fill the CPU build's values into a gpu_check file written elsewhere."""
    reference = json.loads(REFERENCE.read_text())
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines = [row for row in lines if "check" not in row]
    lines, result = verdict(lines, reference)
    path.write_text("".join(json.dumps(row) + "\n" for row in [*lines, result]))
    print(json.dumps(result))
    return 1 if result["problems"] else 0


def machine() -> dict:

    cuda = torch.cuda.is_available()
    return {
        "gpu": torch.cuda.get_device_name(0) if cuda else None,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "cpu cores": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d"),
    }


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", action="store_true")
    parser.add_argument("--allow-cpu", action="store_true", help="run without CUDA")
    parser.add_argument("--out", default=str(BOOK / "data" / "gpu_check.jsonl"))
    parser.add_argument("--only", nargs="*", help="chapter names (stems) to run")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    parser.add_argument("--jobs", type=int, default=1, help="pytest workers")
    parser.add_argument("--no-tests", action="store_true")
    parser.add_argument(
        "--recompare",
        action="store_true",
        help="redo the comparison of --out with the CPU reference",
    )
    return parser.parse_args()


def main() -> int:
    args = _arguments()
    if args.reference:
        write_reference()
        return 0
    if args.recompare:
        return recompare(Path(args.out))

    if not torch.cuda.is_available() and not args.allow_cpu:
        print("no CUDA here: make gpu-check runs on a GPU machine (--allow-cpu to try)")
        return 2
    os.environ.pop("RECUR_DEVICE", None)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(STAND_IN), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    )
    reference = json.loads(REFERENCE.read_text()) if REFERENCE.exists() else {}
    with recorded("make gpu-check", full=not args.only):
        lines = _check_all(args, reference)
    lines, result = verdict(lines, reference)
    print(json.dumps(result), flush=True)
    lines.append(result)
    Path(args.out).write_text("".join(json.dumps(line) + "\n" for line in lines))
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    write_machine_record(args.out, written_by="make gpu-check", gpu=gpu)
    return 1 if result["problems"] else 0


def _check_all(args, reference: dict) -> list:
    """Every chapter, then the unit tests, on this machine's GPU."""
    lines = [machine()]
    for path in chapters():
        if args.only and path.stem not in args.only:
            continue
        row = run_chapter(path, args.timeout)
        print(
            json.dumps({k: row[k] for k in ("chapter", "seconds", "error")}), flush=True
        )
        lines.append(row)
    if not args.no_tests:
        tests = run_tests(args.jobs)
        print(json.dumps(tests), flush=True)
        lines.append(tests)
    return lines


if __name__ == "__main__":
    sys.exit(main())
