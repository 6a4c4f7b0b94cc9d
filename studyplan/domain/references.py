"""Course references as plans write them, and which catalog course each one means.

Models name a course in many truthful ways: "[py4e] Python for Everybody", a bare id, the exact English or
Chinese name, "《Python 编程入门》", a Markdown link, "Name：URL", or the name followed by its provider
("Python for Everybody - University of Michigan"). `resolve_reference` maps all of them to the course, and
says when a reference is wrong: no such course, an id and a name of two different courses, or a link that
is not the catalog's link for the course.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from studyplan.domain.labels import aliases, normalize_label

if TYPE_CHECKING:
    from studyplan.domain.catalog import Catalog, Course

_MARKDOWN_LINK = re.compile(r"\[([^\]]+)\]\(\s*<?([^)\s>]*)>?[^)]*\)")
_LEADING_LINK = re.compile(r"^\[([^\]]+)\]\([^)]*\)\s*(.*)$")
_BRACKETED_ID = re.compile(r"^[\[【]\s*([^\]】]+?)\s*[\]】]\s*(.*)$")
_URL = re.compile(r"<?(https?://[^\s<>)）\]】,，;；、]+)>?", re.IGNORECASE)
_COURSE_SEPARATORS = re.compile(r"\s*[；;、，]\s*|\s+\+\s+")
_BRACKETS = re.compile(r"[（(\[【《][^（）()\[\]【】《》]*[)）\]】》]")
_TRAILING_PARENTHETICAL = re.compile(r"\s*[（(][^（）()]*[)）]\s*$")
# Where a course name ends and its details (provider, link, length) begin.
_DETAIL_SEPARATORS = re.compile(r"\s+[—–|-]\s+|\s*[—|｜]\s*|\s*[:：]\s*|\s*[,，]\s*|\s+(?:by|from|on)\s+|\s*[（(]")


def course_ref_parts(ref: str) -> tuple[str | None, str]:
    """Split a course reference into (id, name): "[py4e] Python for Everybody" -> ("py4e", "Python ...").

    A Markdown link "[Name](url)" and a bare name have no id.
    """
    ref = ref.strip().strip("`*").strip()
    if link := _LEADING_LINK.match(ref):
        return None, link[1].strip()
    if bracketed := _BRACKETED_ID.match(ref):
        return bracketed[1].strip("` "), bracketed[2].strip()
    return None, ref


def split_courses(value: str) -> list[str]:
    """Split a course line at separators outside brackets: "数据结构（陈越、何钦铭）" is one course."""
    # Blank out bracketed text (same length) to find the separators, then cut the original there.
    masked = _BRACKETS.sub(lambda match: "\0" * len(match[0]), value)
    masked = _URL.sub(lambda match: "\0" * len(match[0]), masked)
    refs, begin = [], 0
    for separator in _COURSE_SEPARATORS.finditer(masked):
        refs.append(value[begin : separator.start()])
        begin = separator.end()
    refs.append(value[begin:])
    return [ref.strip() for ref in refs if ref.strip()]


def course_key(ref: str) -> str:
    """What a week's course list keeps of a reference before it is resolved: the id, else the name."""
    course_id, name = course_ref_parts(ref)
    return course_id or name


def is_no_course(value: str) -> bool:
    """ "无（复习与项目）", "none (review and project)", "-", or nothing at all (but not "无监督学习")."""
    first_word = re.split(r"[（(，,。;；:：\-—–]", normalize_label(value), maxsplit=1)[0]
    return not first_word or first_word in aliases()["no_course"]


def resource_name(line: str) -> str:
    """The reference part of a resource line: "[py4e] Python for Everybody — Michigan — url" → "[py4e] Python
    for Everybody" (what messages quote)."""
    course_id, name = course_ref_parts(line)
    first = re.split(r"\s*[—–|｜]\s*|\s+-\s+", name, maxsplit=1)[0].strip()
    return f"[{course_id}] {first}".strip() if course_id else first


@dataclass(frozen=True)
class Resolution:
    """Which catalog course a reference means, or why it means none."""

    course: Course | None
    problem: str | None = None  # "unknown", "mixed" (id and name of two courses) or "wrong_link"
    course_id: str | None = None  # the id as written
    name: str = ""  # the name as written
    url: str | None = None  # the link as written
    name_course: Course | None = None  # the course the name alone means (for "mixed")


def _plain(text: str) -> str:
    text = text.replace("**", "").replace("__", "").strip().strip("`*_ ").strip()
    return re.sub(r"^《(.+?)》", r"\1", text).strip()


def _url_key(url: str) -> str:
    url = re.sub(r"^https?://(?:www\.)?", "", url.strip().lower())
    return url.rstrip("/")


def _name_candidates(name: str) -> list[str]:
    """The name as written, without a trailing parenthetical, and cut where its details begin."""
    name = _plain(name)
    candidates = [name, _TRAILING_PARENTHETICAL.sub("", name)]
    candidates += [name[: match.start()] for match in _DETAIL_SEPARATORS.finditer(name)]
    return [_plain(text) for text in dict.fromkeys(candidates) if _plain(text)]


def _find_by_name(catalog: Catalog, name: str) -> Course | None:
    for candidate in _name_candidates(name):
        if course := catalog.find(candidate):
            return course
    return _find_by_name_and_provider(catalog, _plain(name))


def _find_by_name_and_provider(catalog: Catalog, name: str) -> Course | None:
    """ "Python for Everybody University of Michigan": a course name followed by nothing but its provider."""
    key = normalize_label(name)
    for course in catalog:
        provider = normalize_label(course.provider)
        for known in (course.name, course.name_zh or ""):
            known_key = normalize_label(known)
            if (
                known_key
                and key.startswith(known_key)
                and key[len(known_key) :].strip("-—–|,，:：()（）")
                in (
                    provider,
                    "",
                )
            ):
                return course
    return None


def _find_by_url(catalog: Catalog, urls: list[str]) -> Course | None:
    """A course named only by its catalog link ("[吴恩达机器学习](https://www.coursera.org/learn/...)")."""
    keys = {_url_key(url) for url in urls}
    return next((course for course in catalog if _url_key(course.url) in keys), None)


def is_named(course: Course, name: str) -> bool:
    """Whether `name` (as written, details and all) is one of the course's own names."""
    names = {normalize_label(course.name), normalize_label(course.name_zh or "")}
    return any(normalize_label(candidate) in names for candidate in _name_candidates(name))


def resolve_reference(ref: str, catalog: Catalog) -> Resolution:
    """The catalog course `ref` means, or the reason it means none (see Resolution.problem)."""
    urls = [link[2] for link in _MARKDOWN_LINK.finditer(ref) if link[2]] + _URL.findall(_MARKDOWN_LINK.sub("", ref))
    text = _URL.sub(" ", _MARKDOWN_LINK.sub(lambda link: link[1], ref)).strip()
    text = re.sub(r"[\s:：\-—–|(（]+$", "", text)
    course_id, name = course_ref_parts(text)
    if course_id is None and (by_bare_id := catalog.get(_plain(name))):
        course_id, name = by_bare_id.id, ""
    by_id = catalog.get(course_id) if course_id else None
    if by_id is None and course_id:
        by_id = catalog.find(course_id)  # "[Python for Everybody]" brackets a name, not an id
    by_name = _find_by_name(catalog, name) if name else None
    url = urls[0] if urls else None
    course = by_id or by_name or _find_by_url(catalog, urls)
    if course is None:
        return Resolution(None, "unknown", course_id, name, url)
    if by_id is not None and by_name is not None and by_name.id != by_id.id and not is_named(by_id, name):
        return Resolution(None, "mixed", course_id, name, url, name_course=by_name)
    wrong = next((link for link in urls if _url_key(link) != _url_key(course.url)), None)
    if wrong is not None:
        return Resolution(course, "wrong_link", course_id, name, wrong)
    return Resolution(course, None, course_id, name, url)
