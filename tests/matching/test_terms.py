"""terms: the fold both sides of a search share, the query's words, and the bold line."""

from __future__ import annotations

import pytest

from session_skill.matching import terms


def test_highlight_bolds_words_and_code_spans_and_clips() -> None:
    found = [terms.Term("redis")]
    for t in found:
        t.weight = 1.0
    assert terms.highlight("- use **Redis** here", found) == "use **Redis** here"
    assert terms.highlight("| `src/redis.py` | x |", found) == "| **`src/redis.py`** | x |"
    long = "word " * 100 + "redis " + "tail " * 100
    shown = terms.highlight(long, found)
    assert "**redis**" in shown and shown.startswith("…") and shown.endswith("…")
    assert len(shown) < 260


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("ОБРАБОТКА Ошибок", ["обработка", "ошибок"]),
        ("ÉTÉ", ["ete"]),
        ("Straße", ["strasse"]),
        ("Retry BACKOFF", ["retry", "backoff"]),
    ],
)
def test_query_words_fold_case_beyond_ascii(typed: str, words: list[str]) -> None:
    """Issue 21 #11: the query's case is folded as `str.casefold` folds it."""
    assert terms.query_words(typed) == words


@pytest.mark.parametrize(
    "line",
    [
        "Ошибки: ОБРАБОТКА и обработка",
        "ÉTÉ — été — Été",
        "Die STRASSE, die Straße, ẞ",
        "plain ASCII, NO case to fold — only a dash",
        "",
    ],
)
def test_a_doc_folds_as_its_words_do_and_keeps_its_lines(line: str) -> None:
    data = ("---\nslug: x\n---\n" + line + "\nsecond line\n").encode()
    body_at = data.index(b"---\n", 3) + 4
    folded = terms.fold(data, body_at)
    cased = terms.cased(data, body_at)
    assert cased[:body_at] == data[:body_at].lower()  # the head is where it was
    assert cased.count(b"\n") == data.count(b"\n")
    assert folded == terms.flat(cased)
    for word in line.split():
        assert b" " + terms.fold_text(word).strip() in b" " + folded


def test_a_term_holds_a_word_in_any_case() -> None:
    (word,) = terms.query_words("обработка")
    term = terms.Term(word)
    assert term.holds("ОБРАБОТКА") and term.holds("Обработка") and not term.holds("ошибка")


# The combining marks that follow Latin letters (a decomposed "e\u0301"): dropped, they
# join the letters around them into one ASCII word.
_LATIN_MARKS = (
    (0x300, 0x370),
    (0x1AB0, 0x1B00),
    (0x1DC0, 0x1E00),
    (0x20D0, 0x2100),
    (0xFE20, 0xFE30),
)


def test_every_character_folding_to_ascii_letters_holds_a_marked_byte() -> None:
    """`differs` rules out a fold by those bytes alone when the words are ASCII."""
    for cp in range(0x80, 0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        ch = chr(cp)
        folded = terms.fold_char(ch)
        assert "".join(terms.fold_char(c) for c in folded) == folded, hex(cp)  # a fixed point
        assert "\n" not in folded and "\r" not in folded, hex(cp)  # lines stay where they are
        to_ascii = folded != ch and any(c.isascii() for c in folded)
        mark = not folded and any(lo <= cp < hi for lo, hi in _LATIN_MARKS)
        if to_ascii or mark:
            assert terms.may_fold_to_ascii(ch.encode()), hex(cp)


def test_a_dash_an_arrow_or_an_emoji_is_not_taken_for_a_fold() -> None:
    """The checks after "\xe2" and "\xf0" look at the next bytes: a doc of dashes,
    arrows, a no-break space, a euro sign and emoji is only lowered."""
    data = "a — b → c … d\u00a0e € f 🚀 ✅ ≥ g".encode()
    assert not terms.may_fold_to_ascii(data)


@pytest.mark.parametrize(
    ("doc", "word"),
    [
        ("Die Straße", "strasse"),
        ("the ﬁle", "file"),
        ("ÉTÉ", "ete"),
        ("the café", "cafe"),
        ("the cafe\u0301", "cafe"),  # decomposed, as macOS names files
        ("Ошибка", "ошибка"),
        ("x² and ①", "x2"),
    ],
)
def test_a_doc_is_folded_when_its_fold_holds_the_word(doc: str, word: str) -> None:
    data = doc.encode()
    ascii_words = word.isascii()
    assert terms.differs(data, ascii_words=ascii_words)
    assert b" " + word.encode() in b" " + terms.fold(data, ascii_words=ascii_words)


def test_a_doc_with_nothing_to_fold_is_only_lowered() -> None:
    data = "Keep the — dash, the → arrow and обработка".encode()
    assert not terms.differs(data)
    assert terms.cased(data) == data.lower()


@pytest.mark.parametrize(
    "text",
    [
        "Le CAFÉ, la crème brûlée et l'Œuvre — ça ira → ensuite",
        "cafe\u0301 and na\u0308ive, ẞ and ﬁle, x² ① Ｆｕｌｌ",
        "Ошибка ЁЖИК ёжик; Ελληνικά ΆΈΉ; 한국어 がぎ",
        "plain ascii only",
        "bad \udcff byte kept \udcc3 here é",
    ],
)
def test_a_doc_folded_as_bytes_is_its_text_folded(text: str) -> None:
    """`cased` replaces characters in the bytes; it must give what folding the text does."""
    data = ("---\nslug: x\n---\n" + text + "\nÉTÉ second line\n").encode("utf-8", "surrogateescape")
    body_at = data.index(b"---\n", 3) + 4
    want = data[:body_at].lower() + terms.fold_str(
        data[body_at:].decode("utf-8", "surrogateescape")
    ).encode("utf-8", "surrogateescape")
    assert terms.cased(data, body_at) == want
    assert terms.cased(data, body_at).count(b"\n") == data.count(b"\n")
