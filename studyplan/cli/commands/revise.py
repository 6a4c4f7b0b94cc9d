"""`studyplan revise` (change a saved plan in conversation) and `studyplan replan` (revise from the measured pace)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from studyplan.cli.options import (
    BaseUrlOption,
    CatalogOption,
    MaxStepsOption,
    ModelOption,
    PlanArgument,
    ProtocolName,
    ProtocolOption,
    QuietOption,
    StreamOption,
    TemperatureOption,
    TodayOption,
    TraceFileOption,
    TraceOption,
)

if TYPE_CHECKING:
    from studyplan.app.plan import RunOptions


def _options(
    request: str, plan: Path, model: str | None, base_url: str | None, temperature: float, protocol: ProtocolName,
    max_steps: int, today: str | None, catalog: Path | None, trace: bool, trace_file: Path | None, stream: bool,
    quiet: bool,
) -> RunOptions:
    from studyplan.app.plan import RunOptions
    from studyplan.cli.main import parse_today

    return RunOptions(
        goal=request, today=parse_today(today), plans_dir=plan.parent, model=model, base_url=base_url,
        temperature=temperature, protocol=protocol.value, max_steps=max_steps, catalog=catalog,
        trace=trace or trace_file is not None, trace_file=trace_file, stream=stream, quiet=quiet,
    )  # fmt: skip


def _revise(plan: Path, options: RunOptions) -> None:
    from studyplan.app.revise import run_revision
    from studyplan.cli.main import STATUS_EXIT_CODES

    result = run_revision(options, plan)
    raise typer.Exit(STATUS_EXIT_CODES[result.finished.status])


def revise_command(
    plan: PlanArgument,
    request: Annotated[str, typer.Argument(help='What to change, e.g. "第三周太紧了，帮我减掉一半内容".')],
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    temperature: TemperatureOption = 0.2,
    protocol: ProtocolOption = ProtocolName.auto,
    max_steps: MaxStepsOption = 8,
    today: TodayOption = None,
    catalog: CatalogOption = None,
    trace: TraceOption = False,
    trace_file: TraceFileOption = None,
    stream: StreamOption = False,
    quiet: QuietOption = False,
) -> None:
    """Change a saved plan in conversation: weeks checked in as done stay, the previous version is kept."""
    _revise(plan, _options(request, plan, model, base_url, temperature, protocol, max_steps, today, catalog, trace,
                           trace_file, stream, quiet))


def replan_command(
    plan: PlanArgument,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    temperature: TemperatureOption = 0.2,
    protocol: ProtocolOption = ProtocolName.auto,
    max_steps: MaxStepsOption = 8,
    today: TodayOption = None,
    catalog: CatalogOption = None,
    trace: TraceOption = False,
    trace_file: TraceFileOption = None,
    stream: StreamOption = False,
    quiet: QuietOption = False,
) -> None:
    """Revise the plan from your measured pace (check-ins: weeks done, hours spent, days ahead or behind)."""
    from studyplan.app.progress import plan_status
    from studyplan.app.revise import measure_pace, replan_request
    from studyplan.cli.main import parse_today
    from studyplan.domain.catalog import Catalog
    from studyplan.ui.render import make_console, render_replan_request

    report = plan_status(plan, parse_today(today), Catalog.load(catalog))
    pace = measure_pace(report)
    request = replan_request(pace, report.plan.lang)
    render_replan_request(make_console(), request, needed=pace.off_pace)
    if not pace.off_pace:
        raise typer.Exit(0)
    _revise(plan, _options(request, plan, model, base_url, temperature, protocol, max_steps, today, catalog, trace,
                           trace_file, stream, quiet))


def register(app: typer.Typer) -> None:
    app.command("revise")(revise_command)
    app.command("replan")(replan_command)
