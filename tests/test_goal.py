"""The goal parser: one sentence in Chinese or English → topic, level, duration, weekly hours, start."""

from __future__ import annotations

from datetime import date

import pytest

from studyplan.engine.goal import parse_goal
from studyplan.engine.time_phrases import chinese_number
from studyplan.errors import UsageError

TODAY = date(2026, 11, 30)  # a Monday
NEXT_MONDAY = date(2026, 12, 7)


@pytest.mark.parametrize(
    ("text", "topic", "level", "weeks", "hours"),
    [
        ("零基础3个月学机器学习", "machine_learning", "beginner", 13, 8),
        ("我零基础，想用3个月系统地学习机器学习，帮我安排一个学习计划", "machine_learning", "beginner", 13, 8),
        ("三个月学Python，每天2小时", "python", "beginner", 13, 14),
        ("12周学SQL，每周6小时", "sql_databases", "beginner", 12, 6),
        ("半年学日语，每周末4小时", "japanese", "beginner", 26, 4),
        ("九十天准备雅思", "english", "beginner", 13, 8),
        ("两个月学数据分析", "data_analysis", "beginner", 9, 8),
        ("一年学深度学习，工作日每天1小时，周末每天3小时", "deep_learning", "beginner", 52, 11),
        ("一个半月学会Git", "git_tools", "beginner", 6, 8),
        ("一年半学英语", "english", "beginner", 78, 8),
        ("用1个学期学概率统计", "probability_statistics", "beginner", 16, 8),
        ("有基础，想进阶机器学习，10周", "machine_learning", "intermediate", 10, 10),
        ("每周学3天，每天2小时，2个月学算法", "algorithms", "beginner", 9, 6),
        ("4周学JavaScript，每天半小时", "javascript", "beginner", 4, 3.5),
        ("十二周学前端，每天一个半小时", "web_frontend", "beginner", 12, 10.5),
        ("小白两周学会SQL", "sql_databases", "beginner", 2, 8),
        ("8 weeks of web development, 6 hours a week", "web_frontend", "beginner", 8, 6),
        ("a semester of linear algebra, 2h/day", "linear_algebra", "beginner", 16, 14),
        ("half a year of Japanese", "japanese", "beginner", 26, 8),
        ("90 days of machine learning", "machine_learning", "beginner", 13, 8),
        ("Learn Java in 6 weeks, 3 days a week, 2 hours a day", "java", "beginner", 6, 6),
        ("advanced deep learning, 16 weeks, 15 hours per week", "deep_learning", "advanced", 16, 15),
        ("6-month machine learning plan for a complete beginner, 10 hrs/week", "machine_learning", "beginner", 26, 10),
        ("I want to learn SQL", "sql_databases", "beginner", 12, 8),
        ("intermediate English in 3 months, an hour a day", "english", "intermediate", 13, 7),
        ("Two years of algorithms, 30 minutes a day", "algorithms", "beginner", 104, 3.5),
    ],
)
def test_goal_fields(text: str, topic: str, level: str, weeks: int, hours: float) -> None:
    goal = parse_goal(text, TODAY)
    assert (goal.topic, goal.level, goal.weeks, goal.hours_per_week) == (topic, level, weeks, hours)


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("下周一开始，12周学SQL", NEXT_MONDAY),
        ("明天开始学Python", date(2026, 12, 1)),
        ("12月7日开始学前端，8周", NEXT_MONDAY),
        ("2027年1月4日开始学日语", date(2027, 1, 4)),
        ("half a year of Japanese starting next Monday", NEXT_MONDAY),
        ("90 days of machine learning from 2026-12-07", NEXT_MONDAY),
        ("SQL from January 4, 8 weeks", date(2027, 1, 4)),
        ("学机器学习", TODAY),
    ],
)
def test_start_dates(text: str, start: date) -> None:
    assert parse_goal(text, TODAY).start == start


def test_a_start_in_the_past_becomes_today_and_is_said() -> None:
    goal = parse_goal("从2026-11-01开始学Python，8周", TODAY)
    assert goal.start == TODAY
    assert any("2026-11-01" in item for item in goal.assumptions)


def test_language_follows_the_goal() -> None:
    assert parse_goal("学Python", TODAY).lang == "zh"
    assert parse_goal("learn Python", TODAY).lang == "en"


def test_defaults_are_recorded_as_assumptions_in_the_goals_language() -> None:
    chinese = parse_goal("学机器学习", TODAY)
    assert (chinese.weeks, chinese.hours_per_week, chinese.start) == (12, 8, TODAY)
    assert any("12 周" in item for item in chinese.assumptions)
    assert any("8 小时" in item for item in chinese.assumptions)
    assert any("零基础" in item for item in chinese.assumptions)
    english = parse_goal("learn SQL", TODAY)
    assert any("12 weeks" in item for item in english.assumptions)
    assert any("8 hours a week" in item for item in english.assumptions)


def test_nothing_is_assumed_when_everything_is_given() -> None:
    goal = parse_goal("零基础，下周一开始，12周学SQL，每周6小时", TODAY)
    assert goal.assumptions == ()


def test_known_topics_are_not_the_main_topic() -> None:
    goal = parse_goal("I know Python; 8 weeks of web development, 6 hours a week", TODAY)
    assert (goal.topic, goal.known_topics) == ("web_frontend", ("python",))
    goal = parse_goal("有Python基础，想两个月学数据分析", TODAY)
    assert (goal.topic, goal.known_topics) == ("data_analysis", ("python",))
    goal = parse_goal("会Python，想3个月学深度学习", TODAY)
    assert (goal.topic, goal.known_topics) == ("deep_learning", ("python",))


def test_learning_to_master_a_topic_is_not_knowing_it() -> None:
    goal = parse_goal("3个月学会机器学习", TODAY)
    assert goal.known_topics == ()


def test_a_prerequisite_mentioned_with_its_topic_is_an_extra_topic() -> None:
    goal = parse_goal("学Python和机器学习", TODAY)
    assert (goal.topic, goal.extra_topics) == ("machine_learning", ("python",))


def test_knowing_the_main_topic_already_means_intermediate() -> None:
    goal = parse_goal("I already know Python and want more Python in 8 weeks", TODAY)
    assert (goal.topic, goal.level) == ("python", "intermediate")


def test_frequency_and_rates_are_not_durations() -> None:
    assert parse_goal("每周学3天，每天2小时，学Python", TODAY).weeks == 12  # "3天" is a frequency
    assert parse_goal("一天2小时，学SQL", TODAY).weeks == 12  # "一天" is a rate


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("学习量子烹饪", "找不到与目标匹配的课程主题"),
        ("learn quantum cooking", "No course topic matches"),
        ("3天学会机器学习", "1 周到 3 年"),
        ("用100年学Python", "1 周到 3 年"),
        ("learn SQL in 2 days", "between 1 week and 3 years"),
        ("每天20小时学Python", "小时"),
    ],
)
def test_unusable_goals_raise_one_line_usage_errors(text: str, expected: str) -> None:
    with pytest.raises(UsageError) as error:
        parse_goal(text, TODAY)
    message = str(error.value)
    assert expected in message
    assert "\n" not in message


def test_unknown_topic_lists_the_topics_that_exist() -> None:
    with pytest.raises(UsageError, match="机器学习"):
        parse_goal("学习量子烹饪", TODAY)


@pytest.mark.parametrize(
    ("text", "value"), [("二", 2), ("十", 10), ("十二", 12), ("二十", 20), ("九十", 90), ("一百零五", 105), ("两", 2)]
)
def test_chinese_numbers(text: str, value: int) -> None:
    assert chinese_number(text) == value


@pytest.mark.parametrize(
    ("text", "extra"),
    [
        ("I know Python; 8 weeks of web development, 6 hours a week", ("web_backend",)),
        ("12周学web开发", ("web_backend",)),
        ("想做全栈网站开发，半年", ("web_backend",)),
        ("十二周学前端，每天一个半小时", ()),
        ("web development: HTML and CSS, 6 weeks", ()),
        ("8 weeks of frontend web development", ()),
    ],
)
def test_web_development_in_general_means_a_front_end_and_a_back_end(text: str, extra: tuple[str, ...]) -> None:
    goal = parse_goal(text, TODAY)
    assert (goal.topic, goal.extra_topics) == ("web_frontend", extra)


# --- issue 11 point 5: time phrases parsed right or refused, in zh and en -----------------------------------

TIME_PHRASES = [
    # (goal, weeks, hours per week or None for the default)
    ("in seventeen weeks learn SQL", 17, None),
    ("十七周学SQL", 17, None),
    ("Python in nineteen weeks", 19, None),
    ("十九周学Python", 19, None),
    ("SQL in 10 wks", 10, None),
    ("10个星期学SQL", 10, None),
    ("Git in a fortnight", 2, None),
    ("两周学Git", 2, None),
    ("两周学会SQL", 2, None),
    ("learn SQL in two weeks", 2, None),
    ("寒假学Python", 4, None),
    ("Python over the winter break", 4, None),
    ("每周三次每次两小时，8周学Python", 8, 6),
    ("Python in 8 weeks, 3 times a week, 2 hours each", 8, 6),
]


@pytest.mark.parametrize(("text", "weeks", "hours"), TIME_PHRASES)
def test_time_phrases(text: str, weeks: int, hours: float | None) -> None:
    goal = parse_goal(text, TODAY)
    assert goal.weeks == weeks
    if hours is not None:
        assert goal.hours_per_week == hours


DEADLINES = [
    # a deadline sets the end: the whole weeks from the start (today, 2026-11-30) until it
    ("learn Python by next June", date(2027, 6, 1)),
    ("到明年6月学会Python", date(2027, 6, 1)),
    ("learn SQL before March 1", date(2027, 3, 1)),
    ("3月1日之前学会SQL", date(2027, 3, 1)),
    ("2027年3月1日前学完SQL", date(2027, 3, 1)),
]


@pytest.mark.parametrize(("text", "deadline"), DEADLINES)
def test_a_deadline_sets_the_end_not_the_start(text: str, deadline: date) -> None:
    goal = parse_goal(text, TODAY)
    assert goal.start == TODAY
    assert goal.weeks == (deadline - TODAY).days // 7
    end = goal.start.toordinal() + 7 * goal.weeks - 1
    assert end < deadline.toordinal()
    assert any(str(goal.weeks) in item for item in goal.assumptions)


@pytest.mark.parametrize(
    "text", ["learn SQL in -3 weeks", "-3周学SQL", "SQL in 0 weeks", "0周学SQL", "负3周学SQL", "learn SQL before today"]
)
def test_a_negative_or_zero_duration_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(UsageError) as error:
        parse_goal(text, TODAY)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(("chosen", "expected"), [(None, TODAY), (NEXT_MONDAY, NEXT_MONDAY)])
def test_the_start_option_wins_and_the_default_is_stated(chosen: date | None, expected: date) -> None:
    goal = parse_goal("8周学SQL，下周三开始", TODAY, start=chosen) if chosen else parse_goal("8周学SQL", TODAY)
    assert goal.start == expected
    if chosen is None:
        assert any("--start" in item for item in goal.assumptions)
