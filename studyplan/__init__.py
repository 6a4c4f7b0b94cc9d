"""studyplan: one sentence in, a dated Markdown study plan out, through a ReAct agent loop."""

__version__ = "0.1.0"
