"""The two languages plans are written in, and telling them apart: one rule for every layer."""

from __future__ import annotations

import re
from typing import Literal

Lang = Literal["zh", "en"]
LANGS: tuple[Lang, ...] = ("zh", "en")

_CJK = re.compile(r"[\u3400-\u9fff]")  # CJK unified ideographs, extension A included


def has_chinese(text: str) -> bool:
    return bool(_CJK.search(text))


def detect_lang(text: str) -> Lang:
    """Chinese when the text has a Chinese character, else English."""
    return "zh" if has_chinese(text) else "en"
