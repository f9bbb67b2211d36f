"""The numbers `drop #N` takes (SPEC §7.6): tied to the items they were shown next to.

A number means "the item printed with this number", never "whatever is Nth now". Every
output that numbers parked items records what it showed — number, slug and a hash of
the bullet's line — in the store's `numbers.json` (written by `Store.write_numbers`), and
`#N` resolves against that record:

- `list` numbers the items afresh, 1 to N in file order.
- Any other numbered output (`drop`'s reprint, its candidates, its "nothing matched"
  list) keeps the numbers already given, so after `drop #2` the item shown as 3 is still
  3 (the list has a gap); an item not numbered yet gets the next free number.
- `#N` whose item is gone, or whose line changed since it was shown, is refused (exit 4)
  with the list reprinted; nothing is dropped. So is a number shown in another session
  (`CLAUDE_CODE_SESSION_ID` / `CODEX_THREAD_ID` differ) or a record that cannot be read.
- Every output that numbers items records them, a `list` of an untouched store too (a
  hand edit may move the items before `#N` is typed). With no record at all (none shown
  yet, or the record could not be written), `#N` is the Nth item in file order: the
  number printed then. A drop first records the numbers the items had, then removes them.

Pure logic: the store reads and writes the file, the commands decide what to print.
"""

from __future__ import annotations

import json

try:  # what hashlib.blake2b is, without hashlib loading OpenSSL first (~3 ms on every list)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

from session_skill.records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from session_skill.store.parked import Item

VERSION = 1
MAX_SESSIONS = 16


class Numbers(Record):
    """What was last shown: number N is `keys[N-1]` (a hash of the item's line, "" for a
    number not given) with `slugs[N-1]`, and the sessions that saw it.

    `sessions` holds "" for a viewer whose session is unknown (a terminal). `broken` is
    set when the record exists but cannot be read: every number is then refused. Flat
    lists, not a mapping: a PARKED.md may hold 100,000 items, and a drop reads, extends
    and writes the record whole.
    """

    __slots__ = ("keys", "slugs", "sessions", "broken")
    keys: list[str]
    slugs: list[str]
    sessions: list[str]
    broken: bool

    def __init__(
        self,
        keys: list[str] | None = None,
        slugs: list[str] | None = None,
        sessions: list[str] | None = None,
        broken: bool = False,
    ) -> None:
        self.keys = [] if keys is None else keys
        self.slugs = [] if slugs is None else slugs
        self.sessions = [] if sessions is None else sessions
        self.broken = broken


_KEYS: dict[str, str] = {}  # line -> key: a drop looks every item up more than once


def key_of(item: Item) -> str:
    """A short hash of the bullet's text: an item edited since it was shown differs."""
    key = _KEYS.get(item.line)
    if key is None:
        data = item.line.encode("utf-8", "surrogatepass")
        key = _KEYS[item.line] = blake2b(data, digest_size=8).hexdigest()
    return key


def parse(text: str) -> Numbers:
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("version") != VERSION:
            raise ValueError("not a numbers record")
        sessions, slugs, keys = data["sessions"], data["slugs"], data["keys"]
        lists = isinstance(sessions, list) and isinstance(slugs, list) and isinstance(keys, list)
        if not lists or len(slugs) != len(keys):
            raise ValueError("bad shape")
        # One pass over each list (a record may hold 100,000 numbers).
        if not all(type(v) is str for v in (*sessions, *slugs, *keys)):
            raise ValueError("bad entry")
    except (ValueError, KeyError, TypeError):
        return Numbers(broken=True)
    return Numbers(keys, slugs, sessions)


def render(numbers: Numbers) -> str:
    doc = {
        "version": VERSION,
        "sessions": numbers.sessions,
        "slugs": numbers.slugs,
        "keys": numbers.keys,
    }
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"


def _assigned(items: Sequence[Item], numbers: Numbers, picked: Sequence[int]) -> list[int | None]:
    """The number each picked item has in the record (its line), None when it has none."""
    index = dict(zip(numbers.keys, range(1, len(numbers.keys) + 1), strict=True))
    index.pop("", None)
    if _no_twins(items, numbers, index):
        return [index.get(key_of(items[i])) for i in picked]  # one lookup each
    # Identical lines: each takes the lowest number of its line still free, in file order.
    free: dict[str, list[int]] = {}
    for n in range(len(numbers.keys), 0, -1):
        if numbers.keys[n - 1]:
            free.setdefault(numbers.keys[n - 1], []).append(n)
    every: list[int | None] = []
    for it in items:
        stack = free.get(key_of(it))
        every.append(stack.pop() if stack else None)
    return [every[i] for i in picked]


def _no_twins(items: Sequence[Item], numbers: Numbers, index: dict[str, int]) -> bool:
    """No two items share a line, nor two numbers a key: each line has one number."""
    given = len(numbers.keys) - numbers.keys.count("")
    return len(index) == given and len({it.line for it in items}) == len(items)


def number(
    items: Sequence[Item],
    numbers: Numbers | None,
    session: str,
    *,
    fresh: bool,
    shown: Iterable[int] | None = None,
) -> tuple[list[tuple[int, Item]], Numbers]:
    """Number the items to show (indexes into `items`; all by default), in file order.

    `fresh`, or no record: an item's number is its place in the file (what `#N` takes
    when there is no record). Otherwise the record's numbers are kept and an item without
    one gets the next free number. Returns the (number, item) pairs to print and the
    record to store.
    """
    picked = range(len(items)) if shown is None else sorted(set(shown))
    if fresh or numbers is None or numbers.broken:
        pairs = [(i + 1, items[i]) for i in picked]
        if shown is None:
            keys, slugs = [key_of(it) for it in items], [it.slug for it in items]
        else:
            size = picked[-1] + 1 if picked else 0
            keys, slugs = [""] * size, [""] * size
            for i in picked:
                keys[i], slugs[i] = key_of(items[i]), items[i].slug
        return pairs, Numbers(keys, slugs, [session])
    assigned = _assigned(items, numbers, picked)
    keys, slugs = list(numbers.keys), list(numbers.slugs)
    pairs = []
    for i, n in zip(picked, assigned, strict=True):
        if n is None:
            keys.append(key_of(items[i]))
            slugs.append(items[i].slug)
            n = len(keys)
        pairs.append((n, items[i]))
    sessions = [s for s in numbers.sessions if s != session] + [session]
    return pairs, Numbers(keys, slugs, sessions[-MAX_SESSIONS:])


class Lookup(Record):
    """What `#N` found. `status`: "ok" (`item` set), "none" (no such number), "gone" or
    "changed" (`slug` is the item it was shown with), "session" (shown in another
    session), "broken" (the record cannot be read)."""

    __slots__ = ("status", "item", "slug")
    status: str
    item: Item | None
    slug: str

    def __init__(self, status: str, item: Item | None = None, slug: str = "") -> None:
        self.status = status
        self.item = item
        self.slug = slug


def lookup(items: Sequence[Item], numbers: Numbers | None, session: str, n: int) -> Lookup:
    if numbers is None:
        return Lookup("ok", items[n - 1]) if 1 <= n <= len(items) else Lookup("none")
    if numbers.broken:
        return Lookup("broken")
    if session and session not in numbers.sessions and "" not in numbers.sessions:
        return Lookup("session")
    if not 1 <= n <= len(numbers.keys) or not numbers.keys[n - 1]:
        return Lookup("none")
    slug = numbers.slugs[n - 1]
    # Only an item of that slug can hold the line: look at those alone.
    same_slug = [i for i, it in enumerate(items) if it.slug == slug]
    for i, got in zip(same_slug, _assigned(items, numbers, same_slug), strict=True):
        if got == n:
            return Lookup("ok", items[i])
    if same_slug:
        return Lookup("changed", slug=slug)
    return Lookup("gone", slug=slug)
