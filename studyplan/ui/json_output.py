"""The `--json` documents: one JSON object on stdout per command, for scripts (jq, other tools).

Shapes are stable: keys are only ever added. Dates are ISO strings, paths as the user would type them.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from studyplan.paths import display_path

if TYPE_CHECKING:
    from studyplan.app.library import PlanEntry
    from studyplan.app.plan import AgentRun
    from studyplan.app.progress import StatusReport
    from studyplan.app.revise import RevisionResult, RevisionRun
    from studyplan.core.events import RunFinished
    from studyplan.domain.document import PlanDoc


def print_json(document: dict[str, Any] | list[Any]) -> None:
    """The document on stdout, UTF-8 as is (Chinese stays readable), one trailing newline."""
    sys.stdout.write(json.dumps(document, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


def _run_json(finished: RunFinished, run: AgentRun) -> dict[str, Any]:
    return {
        "status": finished.status,
        "plan": display_path(finished.plan_path) if finished.plan_path is not None else None,
        "model": run.settings.model,
        "endpoint": run.settings.endpoint,
        "steps": finished.steps,
        "seconds": round(finished.seconds, 3),
        "tokens": {
            "prompt": finished.usage.prompt_tokens,
            "completion": finished.usage.completion_tokens,
            "total": finished.usage.total_tokens,
        },
        "trace": display_path(run.trace_path) if run.trace_path is not None else None,
    }


def plan_summary_json(plan: PlanDoc) -> dict[str, Any]:
    """What a plan is, in a few fields: title, dates, weeks, hours and the courses it uses (ids, in order)."""
    courses = list(dict.fromkeys(ref for week in plan.weeks for ref in week.courses))
    return {
        "title": plan.title,
        "goal": plan.goal,
        "lang": plan.lang,
        "start": plan.start.isoformat(),
        "end": plan.end.isoformat(),
        "weeks": len(plan.weeks),
        "hours_per_week": plan.hours_per_week,
        "courses": courses,
    }


def plan_run_json(finished: RunFinished, run: AgentRun) -> dict[str, Any]:
    """`studyplan --json`: how the run ended and, when a plan was saved, what it is."""
    from studyplan.app.progress import read_plan_file

    document = _run_json(finished, run)
    saved = finished.plan_path is not None
    document.update(plan_summary_json(read_plan_file(finished.plan_path)) if saved else {})  # type: ignore[arg-type]
    return document


def revision_json(result: RevisionResult, revision: RevisionRun) -> dict[str, Any]:
    """`studyplan revise --json`: the run, the kept version and what changed, week by week."""
    from studyplan.domain.diff import describe_diff

    document = _run_json(result.finished, revision.run)
    document["kept_version"] = display_path(result.kept_versions[0]) if result.kept_versions else None
    document["renamed_from"] = display_path(result.renamed_from) if result.renamed_from is not None else None
    diff = result.diff
    document["changes"] = (
        None
        if diff is None
        else {
            "summary": describe_diff(diff),
            "weeks": [
                {"change": change.kind, "week": (change.after or change.before).number, "fields": list(change.fields)}  # type: ignore[union-attr]
                for change in diff.changes
            ],
            "unchanged": diff.unchanged,
            "weeks_before": diff.before_weeks,
            "weeks_after": diff.after_weeks,
            "end_before": diff.before_end.isoformat(),
            "end_after": diff.after_end.isoformat(),
        }
    )
    return document


def status_json(report: StatusReport) -> dict[str, Any]:
    """`studyplan status --json`: the plan against its check-ins as of a day."""
    upcoming = report.next_week
    return {
        "plan": display_path(report.plan_path),
        "today": report.today.isoformat(),
        **plan_summary_json(report.plan),
        "done_weeks": report.done_weeks,
        "planned_hours": report.planned_hours,
        "spent_hours": report.spent_hours,
        "days_ahead": report.days_ahead,
        "next_week": upcoming.week.number if upcoming is not None else None,
        "week_status": [
            {
                "number": status.week.number,
                "start": status.week.start.isoformat(),
                "end": status.week.end.isoformat(),
                "courses": status.course_labels,
                "planned_hours": status.planned_hours,
                "spent_hours": status.spent_hours,
                "done": status.done,
                "current": status.is_current,
                "notes": status.notes,
            }
            for status in report.weeks
        ],
    }


def plan_list_json(entries: list[PlanEntry]) -> dict[str, Any]:
    """`studyplan list --json`: each plan with its dates, progress and pace; files that are no plan apart."""
    from studyplan.app.library import pace_words

    plans = []
    for entry in entries:
        if entry.report is None:
            continue
        report = entry.report
        plans.append({
            "plan": display_path(entry.path),
            **plan_summary_json(report.plan),
            "done_weeks": report.done_weeks,
            "planned_hours": report.planned_hours,
            "spent_hours": report.spent_hours,
            "days_ahead": report.days_ahead,
            "pace": pace_words(report),
            "current_week": next((s.week.number for s in report.weeks if s.is_current), None),
        })
    skipped = [
        {"path": display_path(entry.path), "problem": entry.problem}
        for entry in entries
        if entry.report is None and not entry.draft
    ]
    drafts = [display_path(entry.path) for entry in entries if entry.draft]
    return {"plans": plans, "not_plans": skipped, "unchecked_drafts": drafts}
