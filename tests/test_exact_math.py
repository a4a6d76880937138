"""The page trainers' exp, expm1, tanh, log, log1p, cos and integer powers
(``_static/exact_math.js``) against their Python twin, :mod:`recur.core.exact_math`.

ECMAScript lets each engine round ``Math.exp`` and the rest its own way, so the
trainers use these, built from ``+ - * /`` alone, and a seed trains the same model in
every browser. Checked here: the script and the twin give the same double, bit for
bit, on tens of thousands of inputs per function (the ranges the trainers use, the
whole double range, and the edges), in Node and in Chromium; a slip planted in the
script's coefficients or steps goes red; the twin is within a stated number of ulps of
Python's :mod:`math` and answers the special values as ``Math`` does; the trainers call
no engine-rounded function; and their Web Workers, made from the scripts' text, run
the same functions as the page.

Tolerance: none between the script and the twin (the same bits; a NaN matches any
NaN, whose bits ECMAScript leaves to the engine). Against :mod:`math`, whose own
functions are within about an ulp of the truth: 1 ulp (3 for tanh, whose fdlibm
algorithm is within about 2.1 ulps of the truth)."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import struct
import subprocess
import sys
from base64 import b64decode, b64encode

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from recur.core import exact_math
from recur.core.chromium import ACT_TRAINER_SCRIPTS, CELL_TRAINER_SCRIPTS

STATIC = ROOT / "book" / "_extra" / "_static"
SCRIPT = STATIC / "exact_math.js"
UNARY = ("exp", "expm1", "tanh", "log", "log1p", "cos")
ARITY = {**dict.fromkeys(UNARY, 1), "power": 2}
COS_ACCURATE = 2**20 * math.pi / 2  # cos's stated range of about an ulp
MAX_ULPS = {"exp": 1, "expm1": 1, "tanh": 3, "log": 1, "log1p": 1, "cos": 1, "power": 1}
LN2 = math.log(2)


# ---------------------------------------------------------------- the inputs


def _bits_to_float(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _float_bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _steps(x: float, ulps: int) -> list[float]:
    """x and its neighbours up to ``ulps`` doubles away on either side."""
    out, up, down = [x], x, x
    for _ in range(ulps):
        up, down = math.nextafter(up, math.inf), math.nextafter(down, -math.inf)
        out += [up, down]
    return out


def _magnitudes(rng: random.Random, count: int, low: int, high: int) -> list[float]:
    """``count`` doubles of either sign, 2^u with u uniform in [low, high)."""
    return [rng.choice((-1, 1)) * 2.0 ** rng.uniform(low, high) for _ in range(count)]


def _any_doubles(rng: random.Random, count: int) -> list[float]:
    """Random bit patterns: every exponent, subnormals, a few NaNs and infinities."""
    return [_bits_to_float(rng.getrandbits(64)) for _ in range(count)]


MIN_NORMAL, LARGEST = sys.float_info.min, sys.float_info.max
EDGES = [
    0.0, -0.0, 5e-324, -5e-324, MIN_NORMAL, -MIN_NORMAL, math.nextafter(MIN_NORMAL, 0),
    1e-300, 0.5, 1.0, -1.0, 2.0, -2.0, math.pi, -math.pi, LARGEST, -LARGEST,
    math.inf, -math.inf, math.nan,
    2.0**-28, 2.0**-29, 2.0**-54, 2.0**-55, 2.0**53, 2.0**1023, -(2.0**53),
]  # fmt: skip


def _exp_inputs(rng: random.Random) -> list[float]:
    """The sigmoid's and attention's arguments, the whole range, k ln2 and
    (k + 1/2) ln2 (the reduction's edges), the overflow and underflow bounds."""
    xs = [rng.uniform(-50, 50) for _ in range(12000)]
    xs += [rng.uniform(-746, 710) for _ in range(8000)]
    xs += _magnitudes(rng, 8000, -1074, 10)
    for k in range(-1080, 1030):
        xs += _steps(k * LN2, 1) + _steps((k + 0.5) * LN2, 1)
    for bound in (709.782712893384, -745.1332191019411, -708.3964185322641, 38.8162421):
        xs += _steps(bound, 40)
    return xs + _any_doubles(rng, 6000) + EDGES


def _tanh_inputs(rng: random.Random) -> list[float]:
    """The cell's pre-activations, small and tiny ones, and the thresholds where
    the formula changes."""
    xs = [rng.uniform(-25, 25) for _ in range(14000)]
    xs += [rng.uniform(-1, 1) for _ in range(8000)]
    xs += _magnitudes(rng, 10000, -1074, 6)
    for edge in (0.25541281188299536, 0.5493061443340549, 1.0, 19.0, 20.0, 22.0):
        xs += _steps(edge, 100) + _steps(-edge, 100)
    return xs + _any_doubles(rng, 6000) + EDGES


def _log_inputs(rng: random.Random) -> list[float]:
    """Box-Muller's 1 - u (u a multiple of 2^-32), every binade, near 1, near powers
    of two and sqrt(2) times them (the reduction's edges), negatives."""
    xs = [1 - rng.getrandbits(32) / 2**32 for _ in range(12000)]
    xs += [2.0 ** rng.uniform(-1074, 1024) for _ in range(10000)]
    xs += [1 + rng.uniform(-1e-3, 1e-3) for _ in range(4000)]
    for k in range(-1074, 1024, 3):
        xs += _steps(2.0**k, 1) + _steps(math.sqrt(2) * 2.0**k, 1)
    xs += _steps(1.0, 200) + [-rng.uniform(0, 10) for _ in range(500)]
    return xs + _any_doubles(rng, 6000) + EDGES


def _log1p_inputs(rng: random.Random) -> list[float]:
    """exp(-|logit|) (the loss's argument), (-1, 1), tiny ones, near -1, large ones,
    and the edges of its cases (sqrt(1/2) - 1, sqrt(2) - 1, 2^53, 2^-29)."""
    xs = [math.exp(-abs(rng.gauss(0, 8))) for _ in range(12000)]
    xs += [rng.uniform(-1, 1) for _ in range(8000)]
    xs += _magnitudes(rng, 8000, -1074, 0)
    xs += [-1 + 2.0 ** rng.uniform(-53, -1) for _ in range(3000)]
    xs += [2.0 ** rng.uniform(0, 1024) for _ in range(3000)]
    edges = (0.7071067811865476 - 1, 1.4142135623730951 - 1, 1.0, 2.0**53, 2.0**-29)
    for edge in edges:
        xs += _steps(edge, 100) + _steps(-edge, 20)
    return xs + _any_doubles(rng, 6000) + EDGES


def _cos_inputs(rng: random.Random) -> list[float]:
    """Box-Muller's 2 pi u, the cosine schedule's pi (step - 1) / n_steps, wide and
    huge arguments, and the neighbours of multiples of pi/2 (where the reduction
    cancels)."""
    xs = [2 * math.pi * (rng.getrandbits(32) / 2**32) for _ in range(12000)]
    xs += [math.pi * (step - 1) / n for n in (100, 1200, 1500) for step in range(n + 1)]
    xs += [rng.uniform(-COS_ACCURATE, COS_ACCURATE) for _ in range(6000)]
    for k in list(range(0, 2000)) + [rng.randrange(2**20) for _ in range(1000)]:
        xs += _steps(k * (math.pi / 2), 1)
    xs += _magnitudes(rng, 6000, -1074, 1024)
    return xs + _any_doubles(rng, 6000) + EDGES


def _power_inputs(rng: random.Random) -> list[tuple[float, int]]:
    """Adam's betas over every step of the longest run, other bases in [-1, 1]."""
    pairs = [(beta, n) for beta in (0.9, 0.999) for n in range(5000)]
    pairs += [(rng.uniform(-1, 1), rng.randrange(3000)) for _ in range(8000)]
    near_one = [1 - 2.0 ** -rng.randrange(1, 53) for _ in range(3000)]
    pairs += [(base, rng.randrange(10**6)) for base in near_one]
    pairs += [(base, n) for base in (0.0, -0.0, 1.0, -1.0, 0.5) for n in range(64)]
    return pairs


def _inputs() -> dict[str, list[tuple]]:
    rng = random.Random(20240611)
    made = {
        "exp": _exp_inputs(rng),
        "expm1": _exp_inputs(rng) + [rng.uniform(-1e-3, 1e-3) for _ in range(4000)],
        "tanh": _tanh_inputs(rng),
        "log": _log_inputs(rng),
        "log1p": _log1p_inputs(rng),
        "cos": _cos_inputs(rng),
    }
    inputs = {name: [(x,) for x in xs] for name, xs in made.items()}
    inputs["power"] = [(base, float(n)) for base, n in _power_inputs(rng)]
    return inputs


INPUTS = _inputs()


def _python(name: str, args: tuple) -> float:
    if name == "power":
        return exact_math.power(args[0], int(args[1]))
    return getattr(exact_math, name)(*args)


def _pack(rows: list[tuple]) -> bytes:
    flat = [x for row in rows for x in row]
    return struct.pack(f"<{len(flat)}d", *flat)


def _unpack(data: bytes) -> list[float]:
    return list(struct.unpack(f"<{len(data) // 8}d", data))


# ---------------------------------------------------------------- the script, run


# (math, name, arity, bytes) -> bytes: each call's arguments, little-endian doubles,
# in; each result out
APPLY_JS = """(math, name, arity, bytes) => {
  const input = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = bytes.byteLength / 8 / arity;
  const output = new Uint8Array(8 * count), out = new DataView(output.buffer);
  const args = new Array(arity);
  for (let i = 0; i < count; i++) {
    for (let j = 0; j < arity; j++) {
      args[j] = input.getFloat64(8 * (i * arity + j), true);
    }
    out.setFloat64(8 * i, math[name](...args), true);
  }
  return output;
}"""

NODE_JS = f"""
const fs = require("fs"), vm = require("vm");
const [scriptPath, jobsPath] = process.argv.slice(1);
vm.runInThisContext(fs.readFileSync(scriptPath, "utf8"));
const apply = {APPLY_JS};
for (const job of JSON.parse(fs.readFileSync(jobsPath, "utf8"))) {{
  const output = apply(exactMath(), job.name, job.arity, fs.readFileSync(job.input));
  fs.writeFileSync(job.output, output);
}}
"""

BROWSER_JS = f"""([name, arity, encoded]) => {{
  const apply = {APPLY_JS};
  const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
  const output = apply(exactMath(), name, arity, bytes);
  let text = "";
  for (let i = 0; i < output.length; i += 8192) {{
    text += String.fromCharCode(...output.subarray(i, i + 8192));
  }}
  return btoa(text);
}}"""


def _run_node(source: str, jobs: dict[str, list[tuple]], folder) -> dict:
    script = folder / "exact_math.js"
    script.write_text(source)
    listed = []
    for name, rows in jobs.items():
        (folder / f"{name}.in").write_bytes(_pack(rows))
        listed.append({"name": name, "arity": ARITY[name],
                       "input": str(folder / f"{name}.in"),
                       "output": str(folder / f"{name}.out")})  # fmt: skip
    (folder / "jobs.json").write_text(json.dumps(listed))
    subprocess.run(
        ["node", "-e", NODE_JS, str(script), str(folder / "jobs.json")],
        check=True,
        timeout=300,
    )
    return {name: _unpack((folder / f"{name}.out").read_bytes()) for name in jobs}


def _run_chromium(source: str, jobs: dict[str, list[tuple]], browser) -> dict:
    page = browser.new_page()
    try:
        page.set_content("<html><body></body></html>")
        page.add_script_tag(content=source)
        results = {}
        for name, rows in jobs.items():
            encoded = b64encode(_pack(rows)).decode()
            got = page.evaluate(BROWSER_JS, [name, ARITY[name], encoded])
            results[name] = _unpack(b64decode(got))
        return results
    finally:
        page.close()


@pytest.fixture(params=["node", "chromium"])
def run_script(request, tmp_path):
    """run(source, jobs) -> each job's results: exact_math.js (or a planted copy,
    ``source``) in Node or in Chromium. Node is skipped where it is not installed;
    Chromium as every browser test is (conftest's ``browser``)."""
    if request.param == "node":
        if shutil.which("node") is None:
            pytest.skip("node is not installed: exact_math.js is run in Chromium only")
        return lambda source, jobs: _run_node(source, jobs, tmp_path)
    browser = request.getfixturevalue("browser")
    return lambda source, jobs: _run_chromium(source, jobs, browser)


def _same(a: float, b: float) -> bool:
    """The same double, bit for bit; any NaN matches any NaN."""
    return (a != a and b != b) or _float_bits(a) == _float_bits(b)


def _mismatches(name: str, got: list[float]) -> list[tuple]:
    rows = INPUTS[name]
    assert len(got) == len(rows)
    return [
        (row, value, _python(name, row))
        for row, value in zip(rows, got, strict=True)
        if not _same(value, _python(name, row))
    ]


def test_the_inputs_are_tens_of_thousands_per_function():
    assert set(INPUTS) == set(ARITY)
    few = {name: len(rows) for name, rows in INPUTS.items() if len(rows) < 20000}
    assert not few, few


def test_the_script_gives_the_twins_doubles_bit_for_bit(run_script):
    got = run_script(SCRIPT.read_text(), INPUTS)
    wrong = {name: _mismatches(name, got[name]) for name in INPUTS}
    assert all(not rows for rows in wrong.values()), {
        name: (len(rows), rows[:3]) for name, rows in wrong.items() if rows
    }


# Slips in the script alone (text -> planted text), each of which the comparison must
# see: a coefficient's last digit, a step of the range reduction, a threshold.
PLANTED = {
    "exp": ("P1 = 0.16666666666666602", "P1 = 0.16666666666666702"),
    "expm1": ("const t = 3 - r1 * hfx;", "const t = 3.0000000000000004 - r1 * hfx;"),
    "tanh": ("if (size > 20) t = 1;", "if (size > 19) t = 1;"),
    "log": ("const LP1 = 0.6666666666666735,", "const LP1 = 0.6666666666666635,"),
    "log1p": ("x - (u - 1)) / u);", "x - (u - 1)) / u / 2);"),
    "cos": ("w = n * PIO2_2T - ((t - r) - w);", "w = n * PIO2_2T - (t - r);"),
    "power": ("return [high, tail - (high - p)];", "return [high, 0];"),
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_a_slip_planted_in_the_script_goes_red(run_script, name):
    text, planted = PLANTED[name]
    source = SCRIPT.read_text()
    assert source.count(text) == 1, text
    got = run_script(source.replace(text, planted), {name: INPUTS[name]})
    assert _mismatches(name, got[name]), f"the planted slip in {name} went unseen"


# ---------------------------------------------------------------- the twin and math


def _ulps(got: float, want: float) -> float:
    """How many of want's ulps got is away from it."""
    if got == want:
        return 0.0
    return abs(got - want) / math.ulp(want)


def _reference(name: str, args: tuple) -> float | None:
    """Python's math on the same arguments, where it answers a finite number and the
    twin promises its accuracy."""
    x = args[0]
    if not math.isfinite(x) or (name == "cos" and abs(x) >= COS_ACCURATE):
        return None
    try:
        want = x ** int(args[1]) if name == "power" else getattr(math, name)(x)
    except (ValueError, OverflowError):
        return None
    return want if math.isfinite(want) else None


def _worst(name: str, rows) -> tuple[float, tuple | None]:
    worst, where = 0.0, None
    for row in rows:
        want = _reference(name, row)
        if want is not None and _ulps(_python(name, row), want) > worst:
            worst, where = _ulps(_python(name, row), want), row
    return worst, where


@pytest.mark.parametrize("name", sorted(ARITY))
def test_the_twin_is_within_its_ulps_of_math_on_every_input(name):
    worst, where = _worst(name, INPUTS[name])
    assert worst <= MAX_ULPS[name], (name, worst, where)


FINITE = {"allow_nan": False, "allow_infinity": False}
STRATEGIES = {
    "exp": st.floats(-745.2, 709.78, **FINITE),
    "expm1": st.floats(-800, 709.78, **FINITE),
    "tanh": st.floats(**FINITE),
    "log": st.floats(0, exclude_min=True, **FINITE),
    "log1p": st.floats(-1, exclude_min=True, **FINITE),
    "cos": st.floats(-COS_ACCURATE, COS_ACCURATE, **FINITE),
}


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_the_twin_is_within_its_ulps_of_math_anywhere(name, data):
    x = data.draw(STRATEGIES[name])
    want = _reference(name, (x,))
    if want is not None:
        assert _ulps(_python(name, (x,)), want) <= MAX_ULPS[name], (name, x)


@settings(max_examples=400, deadline=None)
@given(st.floats(-1, 1, **FINITE), st.integers(0, 100000))
def test_the_power_is_within_an_ulp_of_pythons(base, count):
    assert _ulps(exact_math.power(base, count), base**count) <= 1


@settings(max_examples=400, deadline=None)
@given(st.floats(**FINITE))
def test_tanh_is_odd_and_cos_even_exactly(x):
    assert _same(exact_math.tanh(-x), -exact_math.tanh(x))
    assert _same(exact_math.cos(-x), exact_math.cos(x))


# function, argument, what Math answers (ECMAScript's special cases)
SPECIAL = [
    ("exp", math.inf, math.inf), ("exp", -math.inf, 0.0), ("exp", math.nan, math.nan),
    ("exp", -0.0, 1.0), ("exp", 710.0, math.inf), ("exp", -746.0, 0.0),
    ("expm1", -0.0, -0.0), ("expm1", -math.inf, -1.0), ("expm1", math.inf, math.inf),
    ("tanh", -0.0, -0.0), ("tanh", math.inf, 1.0), ("tanh", -math.inf, -1.0),
    ("tanh", -5e-324, -5e-324), ("tanh", math.nan, math.nan),
    ("log", 0.0, -math.inf), ("log", -0.0, -math.inf), ("log", -1.0, math.nan),
    ("log", math.inf, math.inf), ("log", 1.0, 0.0), ("log", -math.inf, math.nan),
    ("log1p", -1.0, -math.inf), ("log1p", -2.0, math.nan), ("log1p", -0.0, -0.0),
    ("log1p", math.inf, math.inf), ("log1p", math.nan, math.nan),
    ("cos", math.inf, math.nan), ("cos", -math.inf, math.nan), ("cos", -0.0, 1.0),
    ("cos", math.nan, math.nan),
]  # fmt: skip


@pytest.mark.parametrize(("name", "x", "want"), SPECIAL)
def test_the_twin_answers_the_special_values_as_math_does(name, x, want):
    assert _same(getattr(exact_math, name)(x), want)


# ---------------------------------------------------------------- the trainers' use

# The trainers' functions and the cell's round in models.js, each a top-level function
# of its script.
TRAINERS = {
    "cell_model.js": "cellModel",
    "cell_train.js": "cellTrainer",
    "train_kit.js": "trainKit",
    "act_tape.js": "actTape",
    "act_model.js": "actModel",
    "act_sums.js": "actSums",
    "act_check.js": "actProcedure",
    "act_train.js": "actTrainer",
    "models.js": "cellStep",
}
ROUNDED_BY_ENGINE = re.compile(
    r"Math\.(exp|expm1|tanh|log|log1p|log2|log10|cos|sin|tan|pow|atan2?|asin|acos"
    r"|sinh|cosh|asinh|acosh|atanh|cbrt|hypot)\b"
)


def _body(script: str, function: str) -> str:
    """A top-level function's text, its line comments dropped."""
    text = (STATIC / script).read_text()
    found = re.search(rf"^function {function}\(.*?^}}", text, re.M | re.S)
    assert found, f"{script} declares no function {function}"
    return re.sub(r"//.*$", "", found.group(0), flags=re.M)


@pytest.mark.parametrize("script", sorted(TRAINERS))
def test_the_trainers_call_no_function_the_engine_rounds(script):
    """No Math.exp and the like; ** only on 2 or 4 (an exact integer, a power of
    two, in every engine)."""
    body = _body(script, TRAINERS[script])
    assert not ROUNDED_BY_ENGINE.findall(body), ROUNDED_BY_ENGINE.findall(body)
    bases = re.findall(r"([\w.$)\]]+)\s*\*\*", body)
    assert set(bases) <= {"2", "4"}, bases


CELL_WORKER_JS = """async (seed) => {
  const settings = { nSteps: 3, evalEvery: 1000, maxAttempts: 1 };
  const train = window.OneMoreRound.train;
  Object.assign(train.SETTINGS, settings);
  const page = train.trainCell(seed, () => {});
  const worker = trainerWorker();
  const done = await new Promise((resolve, reject) => {
    worker.onerror = (event) => reject(new Error(event.message));
    worker.onmessage = (event) => event.data.done && resolve(event.data.done);
    worker.postMessage({ seed, settings });
  });
  worker.terminate();
  const same = Object.keys(page.w).every((name) =>
    page.w[name].every((v, k) => Object.is(v, done.w[name][k])));
  return { same, step: done.step };
}"""

ACT_WORKER_JS = """async (seed) => {
  const act = window.OneMoreRound.act, s = act.settingsFor("book", { batchSize: 8 });
  const w = act.initialWeights(seed), rand = act.generator(seed + 1);
  const batch = act.trainingBatch(rand, s);
  const draws = act.trainingDraws(rand, batch.size * (batch.n + 1), s.cap);
  const step = { batch, keep: new Uint8Array(batch.size).fill(1), draws };
  const alone = await act.stepGradients(w, step, 0.5, s, null);
  const worker = actTrainerWorker(), channel = new MessageChannel();
  const failed = new Promise((_, reject) => {
    worker.onerror = (event) => reject(new Error(event.message));
  });
  worker.postMessage({ serve: true, port: channel.port2 }, [channel.port2]);
  const helper = act.helperAt(channel.port1);
  const helped = await Promise.race([
    act.stepGradients(w, step, 0.5, s, helper), failed]);
  worker.terminate();
  const same = Object.keys(alone.gradients).every((name) =>
    alone.gradients[name].every((v, k) => Object.is(v, helped.gradients[name][k])));
  return { same: same && Object.is(alone.loss, helped.loss), loss: alone.loss };
}"""


def _blank_page(browser, scripts: list[str]):
    page = browser.new_page()
    page.set_content("<html><body></body></html>")
    for name in scripts:
        page.add_script_tag(content=(STATIC / name).read_text())
    return page


def test_the_cell_trainers_worker_trains_as_the_page_does(browser):
    """The Web Worker made from the text of cellModel, cellTrainer, trainKit and
    exactMath: the same weights after a few steps as the page's own run."""
    scripts = list(CELL_TRAINER_SCRIPTS)
    page = _blank_page(browser, scripts)
    try:
        got = page.evaluate(CELL_WORKER_JS, 11)
    finally:
        page.close()
    assert got == {"same": True, "step": 3}


def test_the_act_trainers_helper_worker_computes_as_the_page_does(browser):
    """A gradient half computed by the Web Worker made from the scripts' text (and
    exactMath's) is the page's own, bit for bit."""
    page = _blank_page(browser, list(ACT_TRAINER_SCRIPTS))
    try:
        got = page.evaluate(ACT_WORKER_JS, 11)
    finally:
        page.close()
    assert got["same"] and math.isfinite(got["loss"]), got


@pytest.mark.parametrize("scripts", [CELL_TRAINER_SCRIPTS, ACT_TRAINER_SCRIPTS])
def test_a_trainers_scripts_load_in_the_pages_order(scripts):
    """The lists the studies and tests load a trainer from name pages scripts that
    the page loads, in its order (_config.yml's html_js_files)."""
    config = (ROOT / "_config.yml").read_text()
    loaded = re.search(r"html_js_files: \[(.*?)\]", config).group(1).split(", ")
    assert set(scripts) <= set(loaded)
    assert sorted(scripts, key=loaded.index) == list(scripts)
