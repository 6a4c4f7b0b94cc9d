"""Command-line options shared by the sub-commands, written once (typer `Annotated` aliases).

Light imports only: `studyplan --help` loads this module.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class ProtocolName(StrEnum):
    auto = "auto"
    tools = "tools"
    text = "text"


PlanArgument = Annotated[Path, typer.Argument(help="A saved plan, e.g. plans/ml.md.", show_default=False)]
ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        help="Model name, or 'offline'. Default: $STUDYPLAN_MODEL, else offline unless OPENAI_API_KEY / "
        "OPENAI_BASE_URL is set.",
        show_default=False,
    ),
]
BaseUrlOption = Annotated[
    str | None,
    typer.Option("--base-url", help="OpenAI-compatible endpoint. Default: $OPENAI_BASE_URL.", show_default=False),
]
TemperatureOption = Annotated[float, typer.Option(min=0.0, max=2.0, help="Sampling temperature.")]
ProtocolOption = Annotated[
    ProtocolName,
    typer.Option(help="tools: native function calling; text: Thought/Action lines; auto: tools, falling back to text."),
]
MaxStepsOption = Annotated[int, typer.Option(min=1, max=50, help="Most model calls before the run stops.")]
TodayOption = Annotated[
    str | None, typer.Option(help="Use this date as today (YYYY-MM-DD), for repeatable runs.", show_default=False)
]
CatalogOption = Annotated[
    Path | None,
    typer.Option(help="Course catalog JSON. Default: $STUDYPLAN_CATALOG, else the built-in one.", show_default=False),
]
PlansDirOption = Annotated[Path, typer.Option(envvar="STUDYPLAN_PLANS_DIR", help="Folder plans are written to.")]
TraceOption = Annotated[bool, typer.Option(help="Write a JSON Lines step log beside the plan.")]
TraceFileOption = Annotated[
    Path | None, typer.Option(help="Write the step log to this path (implies --trace).", show_default=False)
]
StreamOption = Annotated[bool, typer.Option(help="Stream model replies.")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="Print only the plan's path and summary.")]
