"""Chapter 6's training procedure: the check on 8-bit sums, the restart, the
bar a run must meet, and the words the page derives from a run's numbers. Expected
values are written by hand."""

from __future__ import annotations

import io
import math

import pandas as pd
import pytest
import torch
from tqdm import tqdm

from recur.chapters import ch4_universal_transformer, ch6_act_ut, ch6_measures
from recur.chapters.ch6_act_ut import train_book_act
from recur.chapters.ch6_check import ActCheck
from recur.models.cell import LocalCell
from recur.models.ut import UTOptions
from recur.studies import seed_study
from recur.studies.seed_study import act_succeeded, act_verdict
from recur.training import ut_recipe
from recur.training.config import GiveUp, TrainConfig, restarting
from recur.training.loop import _finish, train

WIDTHS = [8, 16, 32, 64, 128]


def _table(exact=None, chains=None, beyond_8=0.0) -> pd.DataFrame:
    """An act_length_table-shaped result: every width perfect unless told otherwise."""
    exact, chains = exact or {}, chains or {}
    return pd.DataFrame(
        {
            "exact": [exact.get(b, 1.0) for b in WIDTHS],
            "exact, long chains": [chains.get(b, 1.0) for b in WIDTHS],
            "steps beyond the carry": [beyond_8] + [0.0] * (len(WIDTHS) - 1),
        },
        index=pd.Index(WIDTHS, name="bits"),
    )


def test_the_bar_is_99_and_97_percent_up_to_64_bits_and_half_a_step():
    assert act_succeeded(_table().loc[[8, 16, 32, 64]])
    assert act_succeeded(_table({64: 0.99}, {64: 0.97}).loc[[8, 16, 32, 64]])
    assert not act_succeeded(_table({32: 0.989}).loc[[8, 16, 32, 64]])
    assert not act_succeeded(_table(chains={64: 0.96}).loc[[8, 16, 32, 64]])
    assert not act_succeeded(_table(beyond_8=0.51).loc[[8, 16, 32, 64]])


def test_a_run_that_works_makes_the_claim():
    verdict = act_verdict(_table({128: 0.5}))  # 128 bits is beyond the bar
    assert verdict["ok"]
    assert verdict["words"] == "meets it at every width from 8 to 64 bits"
    assert "the claim of this book" in verdict["claim"]


def test_a_failing_run_is_told_as_it_is():
    """The page's words for a run that fell short (another seed, another device):
    the widths where it did, and no claim of success."""
    verdict = act_verdict(_table({64: 0.95}, {32: 0.9}, beyond_8=0.8))
    assert not verdict["ok"]
    assert verdict["words"] == (
        "falls short of it at 32 bits, 64 bits, 8 bits (it halts too late)"
    )
    assert "does not make the book's claim" in verdict["claim"]
    assert "computes more" not in verdict["claim"]


@pytest.mark.parametrize(
    "values, passed",
    [
        ((1.0, 1.0, 0.0, 0.0, 1.0, 0.0), True),
        ((1.0, 1.0, 0.5, 0.12, 0.99, 0.5), True),
        ((0.9999, 1.0, 0.0, 0.0, 1.0, 0.0), False),  # one held-out pair wrong
        ((1.0, 0.999, 0.0, 0.0, 1.0, 0.0), False),  # one long chain wrong
        ((1.0, 1.0, 0.51, 0.0, 1.0, 0.0), False),  # halts too late
        ((1.0, 1.0, 0.0, 0.13, 1.0, 0.0), False),  # used more than an eighth
        ((1.0, 1.0, 0.0, 0.0, 0.989, 0.0), False),  # fewer than 99% of delayed carries
        ((1.0, 1.0, 0.0, 0.0, 1.0, 0.51), False),  # over half its budget in a ring
    ],
)
def test_the_check_passes_only_when_every_part_does(values, passed):
    assert ActCheck(600, *values).passed is passed


def test_the_best_checkpoint_ranks_passing_first_then_accuracy():
    ranked = sorted(
        [
            ActCheck(600, 1.0, 1.0, 0.0, 0.5, 1.0, 0.0),  # fails the budget
            ActCheck(700, 0.99, 1.0, 0.0, 0.0, 1.0, 0.0),
            ActCheck(800, 1.0, 1.0, 0.2, 0.1, 0.995, 0.3),  # passes
            ActCheck(900, 1.0, 1.0, 0.0, 0.0, 0.5, 0.0),  # fails the delayed carries
            ActCheck(1000, 1.0, 1.0, 0.0, 0.0, 1.0, 0.9),  # fails the ring
        ],
        key=ActCheck.score,
    )
    assert [c.step for c in ranked] == [700, 900, 1000, 600, 800]


@pytest.fixture
def seeds(monkeypatch) -> list[int]:
    """The seeds ``train_ut`` is called with, in order (it still trains)."""
    called = []
    real = ut_recipe.train_ut

    def spy(recipe, seed, done=None):
        called.append(seed)
        return real(recipe, seed, done)

    monkeypatch.setattr(ch4_universal_transformer, "train_ut", spy)
    monkeypatch.setattr(ch6_act_ut, "train_ut", spy)
    return called


def test_no_passing_check_means_a_restart_from_another_seed(seeds):
    tiny = {"n_steps": 4, "eval_every": 2, "eval_size": 50, "progress": False}
    book = train_book_act(seed=3, max_attempts=2, min_step=2, **tiny)
    assert seeds == [3, 1003]  # 50 held-out pairs never count as all 10,000
    assert book.attempts == 2 and not book.passed
    assert [c.step for c in book.checks] == [2, 4, 2, 4]
    assert book.kept in book.checks[2:]  # the best checkpoint of the last run
    assert "passed no check in 2 runs" in book.words()


def test_restarting_stops_at_the_first_pass_and_counts_the_runs():
    tried = []

    def train_once(seed: int) -> int:
        tried.append(seed)
        return seed

    result, n_runs, seconds = restarting(train_once, lambda s: s >= 2000, 0, 4)
    assert (result, n_runs, tried) == (2000, 3, [0, 1000, 2000]) and seconds >= 0
    tried.clear()
    result, n_runs, _ = restarting(train_once, lambda s: False, 5, 2)
    assert (result, n_runs, tried) == (1005, 2, [5, 1005])  # the last run's result
    with pytest.raises(ValueError, match="max_attempts"):
        restarting(train_once, bool, 0, 0)


def test_chapter_4s_local_ut_starts_again_when_one_run_falls_short(monkeypatch):
    """Chapter 4's procedure: the recipe of LOCAL_UT; a second run from seed + 1000
    only when the first did not get every held-out pair right, and the words say
    which happened."""
    calls = []
    real = ut_recipe.train_ut

    def spy(recipe, seed, done=None):
        calls.append({"seed": seed, "window": recipe.model.window, "lr": recipe.lr})
        return real(recipe, seed, done)

    monkeypatch.setattr(ch4_universal_transformer, "train_ut", spy)
    tiny = {"n_steps": 4, "eval_every": 2, "eval_size": 50, "progress": False}
    short = ch4_universal_transformer.train_local_ut(
        seed=3, **tiny
    )  # 4 steps: nowhere near 100%
    assert [c["seed"] for c in calls] == [3, 1003] and short.attempts == 2
    assert calls[0]["window"] == 1 and calls[0]["lr"] == 3e-3
    assert not short.passed and short.run.config.seed == 1003
    assert short.words().startswith("missed held-out pairs in 2 runs: after 4 steps")
    calls.clear()
    easy = tiny | {"max_bits": 1, "n_steps": 400, "eval_every": 20, "eval_size": 4}
    once = ch4_universal_transformer.train_local_ut(
        seed=3, **easy
    )  # 1-bit sums: learned at once
    assert [c["seed"] for c in calls] == [3] and once.attempts == 1 and once.passed
    assert once.words().startswith("added all 4 held-out pairs after ")
    assert " steps, in one training run (" in once.words()


def test_chapter4_trains_its_two_uts_beside_each_other_to_the_same_weights():
    """The full-attention UT trained in a second process comes back with the weights it
    gets here, and the local UT is the one train_local_ut trains: each is seeded by
    itself, so where it ran cannot change it. (On the CPU: the second process does not
    share the pretend accelerator.)"""
    tiny = {"n_steps": 3, "eval_every": 3, "eval_size": 20, "progress": False}
    tiny |= {"device": "cpu"}
    here = ch4_universal_transformer.train_both_uts(seed=5, **tiny)
    there = ch4_universal_transformer.train_both_uts(seed=5, jobs=2, **tiny)
    full = ut_recipe.UTRecipe(
        UTOptions(window=None),
        n_steps=3,
        lr=3e-3,
        eval_every=3,
        eval_size=20,
        progress=False,
        device="cpu",
    )
    full_alone, _ = ut_recipe.train_ut(full, seed=5)
    for model in (here[1][0], there[1][0]):
        assert all(map(torch.equal, model.state_dict().values(),
                       full_alone.state_dict().values()))  # fmt: skip
    local_alone = ch4_universal_transformer.train_local_ut(seed=5, **tiny).model
    for run in (here[0], there[0]):
        assert all(map(torch.equal, run.model.state_dict().values(),
                       local_alone.state_dict().values()))  # fmt: skip
    assert here[1][1].config.n_steps == 3 and not there[1][1].config.progress
    with pytest.raises(ValueError, match="jobs must be 1 or 2"):
        ch4_universal_transformer.train_both_uts(seed=5, jobs=3)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="max_attempts"):
        train_book_act(seed=0, max_attempts=0)
    with pytest.raises(ValueError, match="recipe"):
        seed_study.train_recipe("BEST_ACT", 0)


def _runs(rows) -> pd.DataFrame:
    columns = ["recipe", "seed", "bits", "exact", "exact, long chains"]
    columns += ["halted before the carry", "halted before the carry, long chains"]
    columns += ["train seconds", "runs", "check passed"]
    return pd.DataFrame(rows, columns=[*columns, "success"])


def test_seed_counts_and_failures_by_hand():
    table = _runs(
        [
            ["A", 0, 64, 1.0, 1.0, 0.0, 0.0, 30.0, 1, True, True],
            ["A", 1, 64, 1.0, 0.5, 0.0, 0.02, 50.0, 1, True, False],  # chains, early
            ["A", 2, 64, 0.9, 1.0, 0.01, 0.0, 90.0, 2, False, False],  # halted early
            ["A", 3, 64, 1.0, 0.9, 0.0, 0.0, 70.0, 3, True, False],  # lost long chains
            ["B", 0, 64, 1.0, 1.0, 0.0, 0.0, 10.0, 1, None, True],
        ]
    )
    counts = seed_study.seed_counts(table, "A")
    want = {"met": 1, "n": 4, "median": 60.0, "slowest": 90.0, "restarted": 2}
    assert counts == want | {"third": 1}  # seed 3 trained three times
    failed = seed_study.failure_counts(table, "A", n_bits=64)
    want = {"n": 3, "checked": 2, "chains": 2, "waited": 2, "early_on_chains": 1}
    assert failed == want


def test_live_counts_by_hand():
    from recur.core.intervals import interval_text
    from recur.studies.live import CHAPTER2_CELL, CHAPTER7_DEQ, live_counts

    a, b = CHAPTER2_CELL.name, CHAPTER7_DEQ.name
    table = pd.DataFrame(
        {
            "model": [a, a, a, b],
            "reached 100%": [True, True, False, True],
            "train seconds": [10.0, 30.0, 20.0, 5.0],
            "success": [True, False, False, True],
            "exact at 8 bits": [1.0, 0.99, 0.98, 1.0],
        }
    )
    want = {"reached": 2, "met": 1, "n": 3, "median": 20.0, "failed": 2, "short": 1}
    want["learned"] = 2  # at least 99% of fresh 8-bit sums
    want["interval"] = interval_text(1, 3)  # of met in n (tested in test_hardest.py)
    assert live_counts(table, CHAPTER2_CELL) == want


def test_short_of_the_bar_words_by_hand():
    from types import SimpleNamespace

    from recur.studies.live import short_of_the_bar_words

    def table(met: dict) -> pd.DataFrame:  # 20 seeds per model, met[name] succeed
        rows = [
            {"model": name, "reached 100%": True, "train seconds": 1.0,
             "exact at 8 bits": 1.0, "success": seed < count}
            for name, count in met.items() for seed in range(20)
        ]  # fmt: skip
        return pd.DataFrame(rows)

    names = tuple(SimpleNamespace(name=name) for name in "ABC")  # stand-in trainings
    assert short_of_the_bar_words(table({"A": 19, "B": 20, "C": 19}), names) == (
        "Every live training whose result a chapter shows met it for at least 19 of "
        "20 seeds."
    )
    one = short_of_the_bar_words(table({"A": 19, "B": 18, "C": 20}), names)
    assert one.startswith(
        "Of the live trainings whose result a chapter shows, B met its chapter's "
        "result for fewer than 19 of 20 seeds"
    )
    three = short_of_the_bar_words(table({"A": 0, "B": 18, "C": 10}), names)
    assert three.startswith(
        "Of the live trainings whose result a chapter shows, A, B and C met their "
        "chapters' results for fewer than 19 of 20 seeds (the table above counts them)."
    )


def test_each_live_training_has_its_chapters_bar():
    from recur.studies import live

    for training in (live.CHAPTER2_CELL, live.CHAPTER3_INJECTED, live.CHAPTER7_DEQ):
        # 100% held-out and every fresh sum right
        assert training.passes(True, 1.0)
        assert not training.passes(False, 1.0)
        assert not training.passes(True, 0.999)
    local_ut, ponder = live.CHAPTER4_LOCAL_UT.passes, live.CHAPTER7_PONDERNET.passes
    assert local_ut(False, 0.99) and not local_ut(True, 0.9899)
    assert ponder(False, 0.49, 0.99) and not ponder(True, 0.5, 1.0)
    assert not ponder(True, 0.2, 0.98)  # a collapsed run proves nothing


def test_models_trained_by_hand():
    from recur.studies.methods import models_trained

    plain = pd.DataFrame(
        {"variant": ["a", "a", "a", "b"], "seed": [0, 0, 1, 0], "bits": [8, 16, 8, 8]}
    )
    assert models_trained(plain) == 3  # (a, 0), (a, 1), (b, 0)
    restarts = pd.DataFrame(
        {"recipe": ["r", "r", "r"], "seed": [0, 0, 1], "runs": [2, 2, 1]}
    )
    assert models_trained(restarts) == 3  # seed 0 ran twice, seed 1 once


def test_seconds_to_a_target_is_read_from_the_history():
    from recur.training.config import TrainResult

    history = pd.DataFrame(
        {"step": [100, 200, 300], "loss": [1.0, 0.5, 0.1],
         "exact": [0.5, 0.99, 1.0], "pairs": [1000, 1000, 10000],
         "seconds": [1.0, 2.0, 3.0]}
    )  # fmt: skip
    run = TrainResult(None, history, 3.5, None)
    assert run.seconds_to(0.99) == 2.0  # the first check at or above it
    assert run.seconds_to(1.0) == 3.0
    assert math.isnan(run.seconds_to(1.01))


def test_the_bar_the_page_states_is_the_bar_the_code_applies():
    assert seed_study.the_bar() == {"exact": 0.99, "chains": 0.97, "beyond": 0.5}


def test_changed_outcomes_by_hand():
    rows = lambda flags: pd.DataFrame(  # noqa: E731
        {"recipe": "A", "seed": [0, 1, 2, 3], "bits": 64, "success": flags}
    )
    here, there = rows([True, True, False, False]), rows([True, False, True, False])
    counts = seed_study.changed_outcomes(here, there, "A")
    assert counts == {"here": 2, "there": 2, "changed": 2, "n": 4}  # seeds 1 and 2


def _study(runs: dict) -> pd.DataFrame:
    """An act_runs-shaped table (variant, seed, bits): each run is perfect unless
    ``runs[(variant, seed)]`` names a change: "chains" (96.9% of long chains at 64
    bits), "random" (98.9% of random sums at 16) or "late" (0.51 beyond at 8 bits)."""
    rows = []
    for (variant, seed), fault in runs.items():
        table = _table(
            exact={16: 0.989} if fault == "random" else None,
            chains={64: 0.969} if fault == "chains" else None,
            beyond_8=0.51 if fault == "late" else 0.0,
        )
        for bits, row in table.iterrows():
            rows.append(
                {"variant": variant, "seed": seed, "bits": bits} | row.to_dict()
            )
    return pd.DataFrame(rows)


def test_robust_words_by_hand():
    assert (
        seed_study.robust_words(20, 20)
        == "meets the book's rule of at least 19 seeds in 20"
    )
    assert seed_study.robust_words(19, 20).startswith("meets")
    assert seed_study.robust_words(20, 20).startswith("meets")
    assert seed_study.robust_words(18, 20).startswith("falls short of")
    assert seed_study.robust_words(10, 10).startswith("meets")
    assert seed_study.robust_words(9, 10).startswith("falls short of")  # 90% < 95%
    with pytest.raises(ValueError, match="n must be"):
        seed_study.robust_words(0, 0)


def test_count_range_by_hand():
    assert seed_study.count_range(19, 18) == "18 to 19"
    assert seed_study.count_range(18, 19) == "18 to 19"
    assert seed_study.count_range(19, 19) == "19"
    assert seed_study.count_range(7) == "7"
    with pytest.raises(ValueError, match="at least one"):
        seed_study.count_range()


def test_waits_counts_by_hand():
    rows = [
        ("A", 0, 8, 1.0), ("A", 0, 64, 0.97),  # just at the bar: counts
        ("A", 1, 8, 1.0), ("A", 1, 64, 0.969),  # below it at 64 bits
        ("B", 0, 8, 0.0), ("B", 0, 64, 1.0),  # below it at 8 bits
    ]  # fmt: skip
    table = pd.DataFrame(
        rows, columns=["recipe", "seed", "bits", ch6_measures.KILL_WAITS]
    )
    assert seed_study.waits_counts(table) == {"A": 1, "B": 0}


def test_failure_words_by_hand():
    none = {"n": 0, "checked": 0, "chains": 0}
    assert seed_study.failure_words(none) == ""
    one = {"n": 1, "checked": 1, "chains": 0}
    assert seed_study.failure_words(one) == (
        "One of its runs fell short; it had passed the check on 8-bit sums, and it did "
        "not fall short on the long-chain sums."
    )
    other = {"n": 1, "checked": 0, "chains": 1}
    assert "it had not passed" in seed_study.failure_words(other)
    assert "it did fall short" in seed_study.failure_words(other)
    assert seed_study.failure_words({"n": 3, "checked": 2, "chains": 1}).startswith(
        "3 of its runs fell short: 2 of them"
    )


def test_a_run_gives_up_when_its_check_says_so():
    """``done`` raising GiveUp stops training at that check, without reaching the
    target, and the words say so."""

    def done(model, row):
        if row["step"] >= 4:
            raise GiveUp
        return False

    cfg = TrainConfig(n_steps=10, eval_every=2, eval_size=50, progress=False)
    run = train(LocalCell(), cfg, done)
    assert run.gave_up and not run.reached and not run.interrupted
    assert list(run.history["step"]) == [2, 4]
    assert run.words() == "gave up after 4 steps (its check said it would not pass)"


def test_only_a_run_that_another_may_follow_gives_up(seeds):
    """Chapter 6's procedure: a run that has not passed by ``give_up_step`` stops
    there and the next run starts, three runs at most; the last trains all its steps."""
    tiny = {"n_steps": 8, "eval_every": 2, "eval_size": 50, "progress": False}
    book = train_book_act(seed=3, min_step=2, give_up_step=4, **tiny)
    assert seeds == [3, 1003, 2003] and book.attempts == 3
    assert [c.step for c in book.checks] == [2, 4, 2, 4, 2, 4, 6, 8]
    assert book.run.config.seed == 2003 and not book.run.gave_up
    assert book.model.options.halting.train_rows_only  # steps only the running sums
    assert ch6_act_ut.GIVE_UP_STEP == 1000  # chosen on seeds 860-899, see its comment


def test_a_bar_says_why_a_run_stopped_early():
    for gave_up, why in [(False, "target reached"), (True, "gave up")]:
        bar = tqdm(total=10, file=io.StringIO())
        bar.update(4)
        _finish(bar, False, gave_up)
        assert bar.total == 4 and bar.desc.startswith(f"training ({why})")


def test_each_recipe_trains_with_the_settings_written_out_by_hand():
    """Each frozen recipe builds the model and the loop's settings written out here by
    hand (TrainConfig's own defaults for the rest), and refuses to be changed in
    place, built at another size or given a setting it does not have."""
    import dataclasses

    from recur.models.halting import ActHalting
    from recur.models.ut import UTOptions
    from recur.training.ut_recipe import BOOK_ACT, FIRST_ACT, LOCAL_UT, TUNED_ACT

    first_model = UTOptions(window=1, halting=ActHalting(eps=0.01, ponder_weight=0.01))
    first = {"n_rounds": 12, "n_steps": 1500, "lr": 1e-3, "batch_size": 64,
             "eval_every": 100, "stop_at_exact": 0.99, "loss_window": 1,
             "aux_warmup": 500}  # fmt: skip
    tuned_model = UTOptions(
        window=1, inject=True, position="relative", round_signal=False, floor=True,
        halting=ActHalting(ponder_weight=0.1, noise=2.0),
    )  # fmt: skip
    tuned = first | {"chain_share": 0.25, "lr": 3e-3, "n_steps": 800,
                     "stop_at_exact": None}  # fmt: skip
    book_model = dataclasses.replace(
        tuned_model, pause=0.25, pair_as_set=True,
        halting=ActHalting(ponder_weight=0.1, noise=2.0, train_rows_only=True),
    )  # fmt: skip
    book = tuned | {"n_rounds": 16, "lr_decay": "cosine", "n_steps": 1200,
                    "chain_kill_share": 0.5}  # fmt: skip
    local = {"n_rounds": 9, "n_steps": 1500, "lr": 3e-3, "batch_size": 64,
             "eval_every": 100, "loss_window": 9}  # fmt: skip
    for recipe, model, loop in [
        (FIRST_ACT, first_model, first), (TUNED_ACT, tuned_model, tuned),
        (BOOK_ACT, book_model, book), (LOCAL_UT, UTOptions(window=1), local),
    ]:  # fmt: skip
        assert recipe.model == model
        assert recipe.config(seed=7) == TrainConfig(**loop, seed=7)
    with pytest.raises(dataclasses.FrozenInstanceError):
        BOOK_ACT.n_steps = 10
    with pytest.raises(ValueError, match="UT of"):
        BOOK_ACT.but(d_ff=8)
    with pytest.raises(ValueError, match="n_stpes"):
        BOOK_ACT.but(n_stpes=10)
    assert BOOK_ACT.but(pause=0.0, n_steps=10) == dataclasses.replace(
        BOOK_ACT, model=dataclasses.replace(book_model, pause=0.0), n_steps=10
    )
    assert BOOK_ACT.but(aux_warmup=0).config(seed=0).aux_warmup == 0


def test_the_live_study_on_two_kinds_of_cpu_by_hand():
    from recur.studies.live import CHAPTER2_CELL, CHAPTER7_DEQ
    from recur.studies.methods import cpu_changes, cpu_words

    def table(success: dict, value: float = 1.0) -> pd.DataFrame:
        rows = [
            {"model": name, "seed": seed, "train seconds": 10.0 + seed,
             "value": value if seed == 0 else 1.0, "success": seed < met}
            for name, met in success.items() for seed in range(20)
        ]  # fmt: skip
        return pd.DataFrame(rows)

    a, b = CHAPTER2_CELL.name, CHAPTER7_DEQ.name  # both state a result
    here = table({a: 19, b: 20})
    there = table({a: 18, b: 20}, value=0.5).assign(**{"train seconds": 99.0})
    changes = cpu_changes(here, there.iloc[::-1])  # rows in another order
    # seed 0's value changed for both; seed 18 of a no longer met the bar
    assert changes == {"changed": 3, "n": 40, "moved": {a: (19, 18)}, "crossed": [a]}
    assert cpu_words(changes) == (
        f"The count of seeds that met the bar moved (19 to 18 for {a}); {a} moved "
        "across the book's rule of 19 seeds in 20."
    )
    same = cpu_changes(here, here.assign(**{"train seconds": 1.0}))
    assert same == {"changed": 0, "n": 40, "moved": {}, "crossed": []}
    assert cpu_words(same) == "The count of seeds that met the bar moved for no model."
    assert cpu_words(changes, lead="On that CPU").startswith(
        "On that CPU, the count of seeds that met the bar moved (19 to 18"
    )
    with pytest.raises(ValueError, match="same trainings and seeds"):
        cpu_changes(here, here.iloc[1:])


def test_the_ut_options_default_to_the_size_every_chapter_trains():
    """Recipes and ``train_ut`` leave the size to ``UTOptions``' defaults, so these
    must be :data:`UT_SIZE` (32, 4 and 64, as Chapter 4 states them)."""
    from recur.models.ut import UTOptions
    from recur.training.ut_recipe import UT_SIZE

    options = UTOptions()
    assert {name: getattr(options, name) for name in UT_SIZE} == UT_SIZE
    assert UT_SIZE == {"d_model": 32, "n_heads": 4, "d_ff": 64}
