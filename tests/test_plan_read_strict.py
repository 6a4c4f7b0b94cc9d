"""Hand-broken saved plans (issue 13): status, export, checkin and revise refuse them with the line that is wrong."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from plan_samples import valid_plan

from studyplan.cli.exit_codes import EXIT_DATA
from studyplan.cli.main import run_cli
from studyplan.domain.catalog import Catalog
from studyplan.domain.checks import review_plan
from studyplan.domain.document import parse_plan, read_saved_plan
from studyplan.errors import PlanFileError

START = date(2026, 3, 2)  # a Monday; six weeks


@pytest.fixture(scope="module")
def plan_text() -> str:
    return valid_plan(Catalog.load(), START, lang="en")


def _broken(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# (passage replaced, replacement, the line quoted in the error, the reason)
BROKEN = {
    "duplicate week": (
        "### Week 3: 2026-03-16 (Mon) – 2026-03-22 (Sun)",
        "### Week 2: 2026-03-16 (Mon) – 2026-03-22 (Sun)",
        "### Week 2: 2026-03-16 (Mon) – 2026-03-22 (Sun)",
        "week 2 appears twice (first on line",
    ),
    "week ends before it starts": (
        "### Week 2: 2026-03-09 (Mon) – 2026-03-15 (Sun)",
        "### Week 2: 2026-03-09 (Mon) – 2026-03-03 (Tue)",
        "### Week 2: 2026-03-09 (Mon) – 2026-03-03 (Tue)",
        "week 2 ends (2026-03-03) before it starts (2026-03-09)",
    ),
    "gap between weeks": (
        "### Week 4: 2026-03-23 (Mon) – 2026-03-29 (Sun)",
        "### Week 4: 2026-03-30 (Mon) – 2026-04-05 (Sun)",
        "### Week 4: 2026-03-30 (Mon) – 2026-04-05 (Sun)",
        "week 4 starts 2026-03-30, but week 3 ends 2026-03-22",
    ),
    "plan ends before it starts": (
        "- End: 2026-04-12 (Sun)",
        "- End: 2026-01-04 (Sun)",
        "- End: 2026-01-04 (Sun)",
        "the plan ends (2026-01-04) before it starts (2026-03-02)",
    ),
    "week numbers skip": (
        "### Week 5: 2026-03-30 (Mon) – 2026-04-05 (Sun)",
        "### Week 6: 2026-03-30 (Mon) – 2026-04-05 (Sun)",
        "### Week 6: 2026-03-30 (Mon) – 2026-04-05 (Sun)",
        "week 6 comes where week 5 should",
    ),
}


@pytest.mark.parametrize("case", BROKEN)
def test_the_strict_reader_names_the_wrong_line(plan_text: str, case: str) -> None:
    old, new, quoted, reason = BROKEN[case]
    text = _broken(plan_text, old, new)
    parse_plan(text)  # the lenient reader (the checker's) still reads it
    with pytest.raises(PlanFileError) as refused:
        read_saved_plan(text)
    line_number = text.splitlines().index(new) + 1
    message = str(refused.value)
    assert message.startswith(f"line {line_number}: '{quoted}': ") and reason in message
    assert "\n" not in message


def test_a_sound_plan_reads_the_same_strictly_and_leniently(plan_text: str) -> None:
    assert read_saved_plan(plan_text) == parse_plan(plan_text)


def test_a_date_at_the_end_of_the_calendar_is_refused_not_overflowed(plan_text: str) -> None:
    text = _broken(
        plan_text,
        "### Week 6: 2026-04-06 (Mon) – 2026-04-12 (Sun)",
        "### Week 6: 9999-12-31 (Fri) – 10000-01-06 (Thu)",
    )
    with pytest.raises(PlanFileError, match="week 6 of the plan has no start and end dates"):
        read_saved_plan(text)


COMMANDS = {
    "status": ["status", "{plan}", "--today", "2026-03-04"],
    "export": ["export", "{plan}", "--ics"],
    "checkin": ["checkin", "{plan}", "--hours", "2", "--today", "2026-03-04"],
    "revise": ["revise", "{plan}", "lighten week 5", "--today", "2026-03-04"],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", ["duplicate week", "week ends before it starts", "gap between weeks"])
def test_commands_refuse_a_hand_broken_plan_with_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, plan_text: str, command: str, case: str
) -> None:
    old, new, quoted, reason = BROKEN[case]
    plan = tmp_path / "plans" / "ml.md"
    plan.parent.mkdir()
    text = _broken(plan_text, old, new)
    plan.write_text(text, encoding="utf-8")
    before = sorted(p.name for p in tmp_path.rglob("*"))

    code = run_cli([arg.format(plan=plan) for arg in COMMANDS[command]])

    err = capsys.readouterr().err
    assert code == EXIT_DATA
    line = f"line {text.splitlines().index(new) + 1}: '{quoted}': "
    assert err.startswith(f"Error: {plan}: {line}") and err.count("\n") == 1 and reason in err
    assert plan.read_text(encoding="utf-8") == text  # nothing rewritten
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written beside it


def test_the_checker_refuses_a_date_at_the_end_of_the_calendar(plan_text: str) -> None:
    text = plan_text.replace("2026-03-02", "9999-12-31")
    review = review_plan(text, Catalog.load(), date(2026, 3, 1))
    assert review.plan is None
    assert review.problems == [
        "The date 9999-12-31 is no date a plan can have (years 1900-9000); date the plan from today's date."
    ]
