"""store/numbers.py: the numbers `#N` takes stay tied to the items they were shown with."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from session_skill.store.numbers import Numbers, lookup, number, parse, render
from session_skill.store.parked import Item, Parked
from session_skill.store.store import Store

TEXT = "".join(f"- **{c}** — idea {c}.\n" for c in "abcde")


def _items(text: str = TEXT) -> list[Item]:
    return Parked(text).items


def test_fresh_numbers_are_one_to_n_and_round_trip() -> None:
    items = _items()
    pairs, record = number(items, None, "s1", fresh=True)
    assert [(n, it.slug) for n, it in pairs] == [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e")]
    assert parse(render(record)) == record
    assert record.sessions == ["s1"]


def test_kept_numbers_survive_a_removal_and_new_items_come_after() -> None:
    _, record = number(_items(), None, "", fresh=True)
    later = _items(TEXT.replace("- **b** — idea b.\n", "") + "- **f** — idea f.\n")
    pairs, kept = number(later, record, "", fresh=False)
    assert [(n, it.slug) for n, it in pairs] == [(1, "a"), (3, "c"), (4, "d"), (5, "e"), (6, "f")]
    assert kept.slugs[1] == "b"  # the gone item keeps its number: never reused
    assert lookup(later, kept, "", 2).status == "gone"
    assert lookup(later, kept, "", 6).item == later[-1]


def test_only_the_items_shown_get_new_numbers() -> None:
    _, record = number(_items(), None, "", fresh=True)
    grown = _items(TEXT + "- **f** — f.\n- **g** — g.\n")
    pairs, kept = number(grown, record, "", fresh=False, shown=[6, 0])
    assert [(n, it.slug) for n, it in pairs] == [(1, "a"), (6, "g")]
    assert lookup(grown, kept, "", 7).status == "none"  # f was never shown


def test_an_edited_line_is_changed_not_the_same_item() -> None:
    _, record = number(_items(), None, "", fresh=True)
    edited = _items(TEXT.replace("idea c.", "idea c, reworded."))
    assert lookup(edited, record, "", 3).status == "changed"
    assert lookup(edited, record, "", 4).item == edited[3]


def test_identical_lines_keep_their_own_numbers() -> None:
    twins = _items("- same\n- same\n- other\n")
    _, record = number(twins, None, "", fresh=True)
    assert lookup(twins, record, "", 2).item == twins[1]
    one_left = _items("- same\n- other\n")
    pairs, _ = number(one_left, record, "", fresh=False)
    assert [n for n, _ in pairs] == [1, 3]


def test_sessions() -> None:
    items = _items()
    _, record = number(items, None, "s1", fresh=True)
    assert lookup(items, record, "s2", 1).status == "session"
    assert lookup(items, record, "", 1).status == "ok"  # a terminal: no session to compare
    _, seen = number(items, record, "s2", fresh=False)  # s2 was shown the same numbers
    assert (
        lookup(items, seen, "s2", 1).status == "ok" and lookup(items, seen, "s1", 1).status == "ok"
    )
    _, by_terminal = number(items, None, "", fresh=True)
    assert lookup(items, by_terminal, "s9", 1).status == "ok"


def test_no_record_means_file_order() -> None:
    items = _items()
    assert lookup(items, None, "s1", 5).item == items[4]
    assert lookup(items, None, "s1", 6).status == "none"
    assert lookup(items, None, "s1", 0).status == "none"


@given(st.text(max_size=200))
def test_any_text_parses_to_a_record_or_broken(text: str) -> None:
    got = parse(text)
    assert isinstance(got, Numbers)
    if got.broken:
        assert lookup(_items(), got, "", 1).status == "broken"


def test_store_reads_back_what_it_wrote(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.ensure()
    assert store.read_numbers() is None
    _, record = number(_items(), None, "s", fresh=True)
    assert store.write_numbers(record)
    assert store.read_numbers() == record
    mtime = (store.dir / "numbers.json").stat().st_mtime_ns
    assert store.write_numbers(record)  # unchanged: not rewritten
    assert (store.dir / "numbers.json").stat().st_mtime_ns == mtime
    (store.dir / "numbers.json").unlink()
    (store.dir / "numbers.json").mkdir()
    read = store.read_numbers()
    assert read is not None and read.broken
