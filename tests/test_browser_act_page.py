"""Chapter 6's trainer in the built page, as a reader uses it: a bad seed is told in
the widget; Train shows progress and the loss, and at the end one sentence derived
from the run, the explorer running the reader's model and the widths row; Stop hands
over the model so far; the seed lives in the page's address; reloading mid-run leaves
a working trainer; a phone-width page still holds it. Short runs (a few steps, small
checks) keep these tests quick: what they test is the page, not the procedure."""

from __future__ import annotations

import json

PAGE = "book/06_act_ut.html"
# A run of a few steps with a check after step 4 and small test sets.
SHORT = {"nSteps": 6, "evalEvery": 2, "firstCheck": 4, "giveUp": 4, "maxAttempts": 2,
         "checkSums": 12, "evalSize": 100, "screen": 50, "widthSums": 4,
         "widthChains": 3, "widths": [8, 16]}  # fmt: skip


def _trainer(page, site, query: str = "", settings: dict | None = SHORT):
    page.goto(f"{site}/{PAGE}{query}", wait_until="load")
    root = page.locator(".act-trainer").first
    root.locator(".trainer-message").wait_for(state="attached")
    if settings is not None:
        page.evaluate(
            """(settings) => {
              const root = document.querySelector('.act-trainer');
              root.dataset.settings = JSON.stringify(settings);
              mountActTrainer(root); }""",
            settings,
        )
    return root


def _message(root) -> str:
    return root.locator(".trainer-message").inner_text()


def test_a_bad_seed_is_told_in_the_widget(page, site):
    root = _trainer(page, site)
    for bad, told in [("1.5", "seed must be an integer, got '1.5'"),
                      ("x", "seed must be an integer, got 'x'"),
                      ("-1", "seed must be in 0..")]:  # fmt: skip
        root.locator(".trainer-seed").fill(bad)
        root.locator(".trainer-train").click()
        assert told in _message(root)
        assert root.locator(".trainer-train").is_enabled()
    assert not page.errors, page.errors


def test_a_run_to_its_verdict_hands_its_model_and_widths_row_over(page, site):
    """The sentence comes from the run (six steps pass no check, in every run the
    settings allow); the explorer runs the reader's weights; the widths row shows
    one line per width; the seed went into the address."""
    root = _trainer(page, site)
    root.locator(".trainer-seed").fill("3")
    root.locator(".trainer-train").click()
    page.wait_for_function(
        "() => document.querySelector('.trainer-widths table')", timeout=120000
    )
    text = _message(root)
    assert text.startswith("Seed 3 passed no check in 2 runs"), text
    assert page.evaluate("window.OneMoreRound.trainedAct.seed") == 3
    assert root.locator(".trainer-widths tr").count() == 1 + len(SHORT["widths"])
    assert root.locator(".trainer-loss polyline").count() == 1
    assert "held-out pairs right" in root.locator(".trainer-loss").text_content()
    assert "seed=3" in page.url
    explorer = page.locator(".act-explorer").first
    assert "The model ran" in explorer.inner_text()
    a, b = "1" * 64, "0" * 63 + "1"  # a 64-bit sum whose carry crosses every bit
    explorer.locator(".explore-a").fill(a)
    explorer.locator(".explore-b").fill(b)
    assert "The model ran" in explorer.locator(".explore-message").inner_text()
    assert explorer.locator(".explore-view table td").count() > 64
    assert not page.errors, page.errors


def test_stop_hands_over_the_model_so_far(page, site):
    root = _trainer(page, site, settings={**SHORT, "nSteps": 400, "firstCheck": 400})
    root.locator(".trainer-seed").fill("5")
    root.locator(".trainer-train").click()
    page.wait_for_function(
        "() => document.querySelector('.trainer-progress').value >= 2", timeout=60000
    )
    root.locator(".trainer-stop").click()
    assert _message(root).startswith("Stopped at step "), _message(root)
    assert page.evaluate("window.OneMoreRound.trainedAct.seed") == 5
    assert root.locator(".trainer-train").is_enabled()
    assert not page.errors, page.errors


def test_the_seed_in_the_address_fills_the_field(page, site):
    root = _trainer(page, site, query="?seed=17")
    assert root.locator(".trainer-seed").input_value() == "17"
    root = _trainer(page, site, query="?seed=oops")
    assert root.locator(".trainer-seed").input_value() == "oops"
    root.locator(".trainer-train").click()
    assert "seed must be an integer, got 'oops'" in _message(root)
    assert not page.errors, page.errors


def test_reloading_during_a_run_leaves_a_working_trainer(page, site):
    root = _trainer(page, site, settings={**SHORT, "nSteps": 400, "firstCheck": 400})
    root.locator(".trainer-train").click()
    page.wait_for_function(
        "() => document.querySelector('.trainer-progress').value >= 1", timeout=60000
    )
    page.reload(wait_until="load")
    root = page.locator(".act-trainer").first
    root.locator(".trainer-message").wait_for(state="attached")
    assert root.locator(".trainer-train").is_enabled()
    assert root.locator(".trainer-stop").is_disabled()
    assert not page.errors, page.errors


def test_the_trainer_fits_a_phone(page, site):
    page.set_viewport_size({"width": 360, "height": 740})
    root = _trainer(page, site)
    width = page.evaluate(
        "() => { const r = document.querySelector('.act-trainer');"
        " return [r.scrollWidth, r.clientWidth]; }"
    )
    assert width[0] <= width[1] + 1, width
    assert root.locator(".trainer-train").is_visible()


def test_the_page_states_the_expected_time_before_the_click(page, site):
    root = _trainer(page, site, settings=None)
    expected = root.locator(".trainer-expected").inner_text()
    assert "after a median of" in expected and "s (at most" in expected, expected
    assert json.loads(root.get_attribute("data-seed") or "null") == 0
