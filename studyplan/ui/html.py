"""A plan as one self-contained HTML page (no scripts, no fonts, no requests): styles inline, this week marked,
done weeks ticked, a progress line on top (studyplan open / show --html).

The plan's Markdown may come from a model: raw HTML in it is escaped, never passed through, and
markdown-it refuses javascript: links.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from markdown_it import MarkdownIt

from studyplan import __version__
from studyplan.ui.plan_view import annotated

if TYPE_CHECKING:
    from studyplan.app.library import PlanView

_STYLE = """
body { font: 16px/1.55 system-ui, -apple-system, "Segoe UI", "PingFang SC", "Microsoft YaHei", sans-serif;
       max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1d2125; background: #fff; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #d8dee4; }
h3 { margin-top: 1.5rem; }
.progress { color: #57606a; margin-bottom: 1.5rem; }
.this-week { border-left: 4px solid #0969da; background: #f3f8ff; padding: 0.2rem 1rem; margin: 1rem -1rem; }
code { background: #f6f8fa; padding: 0 0.2rem; }
footer { color: #8c959f; font-size: 0.85rem; margin-top: 3rem; }
@media (prefers-color-scheme: dark) {
  body { background: #0d1117; color: #e6edf3; } .this-week { background: #132339; }
  code { background: #161b22; } a { color: #58a6ff; }
}
"""


def plan_page(view: PlanView) -> str:
    """The whole page as text."""
    from studyplan.app.library import pace_words

    markdown = MarkdownIt("commonmark", {"html": False})
    report = view.report
    title = html.escape(report.plan.title or report.plan_path.stem)
    progress = (
        f"{report.done_weeks}/{len(report.weeks)} weeks done · {report.spent_hours:g} of "
        f"{report.planned_hours:g} hours spent · {pace_words(report)} · as of {report.today.isoformat()}"
    )
    parts = []
    for section in view.sections:
        body = markdown.render(annotated(section))
        if section.week is not None and section.week.is_current:
            body = f'<section class="this-week" id="this-week">\n{body}</section>\n'
        parts.append(body)
    lang = "zh-CN" if report.plan.lang == "zh" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{title}</title>\n'
        f"<style>{_STYLE}</style>\n</head>\n<body>\n"
        f'<p class="progress">{html.escape(progress)}</p>\n'
        + "".join(parts)
        + f"<footer>Made by studyplan {html.escape(__version__)} from {html.escape(report.plan_path.name)}."
        "</footer>\n</body>\n</html>\n"
    )
