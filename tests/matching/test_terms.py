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
        ("ÉTÉ", ["été"]),
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


def test_every_character_folding_to_ascii_letters_holds_a_marked_byte() -> None:
    """`differs` rules out a fold by those bytes alone when the words are ASCII."""
    for cp in range(0x80, 0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        ch = chr(cp)
        folded = ch.casefold()
        if folded != ch and any(c.isascii() for c in folded):
            assert any(b in ch.encode() for b in terms.TO_ASCII_BYTES), hex(cp)


@pytest.mark.parametrize(
    ("doc", "word"),
    [("Die Straße", "strasse"), ("the ﬁle", "file"), ("ÉTÉ", "été"), ("Ошибка", "ошибка")],
)
def test_a_doc_is_folded_when_its_fold_holds_the_word(doc: str, word: str) -> None:
    data = doc.encode()
    ascii_words = word.isascii()
    assert terms.differs(data, ascii_words=ascii_words)
    assert b" " + word.encode() in b" " + terms.fold(data, ascii_words=ascii_words)


def test_a_doc_with_nothing_to_fold_is_only_lowered() -> None:
    data = "Keep the — dash, the → arrow and été".encode()
    assert not terms.differs(data)
    assert terms.cased(data) == data.lower()
