"""The plan document: one data model, rendered to Markdown and read back.

The Markdown format is the contract between whoever writes a plan (the offline planner, an LLM shown
`plan_template`), the checker run before saving, and the commands that read saved plans. This module is its
public face; the parts live beside it:

- `plan_model`: PlanDoc, Phase, Week (plain data);
- `labels`: the wording of both languages and the reader's aliases (data/plan_labels.json), the template;
- `markdown`: markdown-it-py tokens flattened into lines (code blocks are never plan content);
- `reading`: the domain rules over those lines (`scan_plan`, `parse_plan`, `read_saved_plan`);
- `references`, `dates`: course references and dates as models write them;
- `rendering`: the canonical Markdown (`render_plan`).
"""

from __future__ import annotations

from studyplan.domain.dates import DateMention, find_dates, weekday_of_token
from studyplan.domain.labels import plan_labels, plan_template, render_labels, weekday_label
from studyplan.domain.plan_model import LANGS, Lang, Phase, PlanDoc, Week
from studyplan.domain.reading import PlanScan, parse_plan, read_saved_plan, scan_plan
from studyplan.domain.references import course_ref_parts
from studyplan.domain.rendering import render_plan

__all__ = [
    "LANGS",
    "DateMention",
    "Lang",
    "Phase",
    "PlanDoc",
    "PlanScan",
    "Week",
    "course_ref_parts",
    "find_dates",
    "parse_plan",
    "plan_labels",
    "plan_template",
    "read_saved_plan",
    "render_labels",
    "render_plan",
    "scan_plan",
    "weekday_label",
    "weekday_of_token",
]
