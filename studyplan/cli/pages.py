"""The HTML page of a plan, written for `studyplan open` and `studyplan show --html`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studyplan.app.library import PlanView


def write_plan_page(view: PlanView, output: Path | None, open_browser: bool) -> None:
    """Write (or update) the page, say where it is, and open it if asked and a graphical browser exists."""
    from studyplan.app.library import page_path, write_page
    from studyplan.ui.console import make_console
    from studyplan.ui.export import render_page_written
    from studyplan.ui.html import plan_page

    requested = page_path(view.report.plan_path, output)
    written = write_page(requested, plan_page(view))
    opened = open_browser and _open_in_browser(written)
    render_page_written(make_console(), written, requested, opened)


def _open_in_browser(path: Path) -> bool:
    """Open the page in a graphical browser; never in CI or without a display (a text browser would take over
    the terminal), and never an error: the page is written either way."""
    import webbrowser

    display = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    graphical = sys.platform in ("darwin", "win32") or bool(display)
    if os.environ.get("CI") or not graphical:
        return False
    try:
        return webbrowser.open(path.resolve().as_uri())
    except webbrowser.Error:
        return False
