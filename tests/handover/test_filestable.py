"""The Files touched table (SPEC §4.4): parse, merge, the 25-row cap, never a silent drop."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_skill.handover import filestable as ft

ROOT = Path("/proj")


def _leaf_paths(rows: list[ft.Row]) -> list[str]:
    return sorted(leaf.file for r in rows for leaf in r.leaves())


def test_parse_rows_reads_the_table_and_keeps_notes() -> None:
    section = (
        "| File | Change | State | Ref |\n"
        "| --- | :---: | --- | --- |\n"
        "| `src/a.py` | added a \\| b | done | +1/-0 |\n"
        "| src/b.py | fixed | wip | |\n"
        "| `src/` (12 files) |  | done ×12 | +40/-2 |\n"
        "\n"
        "A note the model wrote.\n"
        "_12 files grouped into 1 directory row to keep the table at 25 rows._\n"
    )
    rows, notes = ft.parse_rows(section)
    assert [(r.file, r.change, r.state, r.ref) for r in rows] == [
        ("src/a.py", "added a | b", "done", "+1/-0"),
        ("src/b.py", "fixed", "wip", "—"),
        ("src/", "", "done ×12", "+40/-2"),
    ]
    assert notes == ["A note the model wrote."]


@pytest.mark.parametrize(
    ("path", "rel"),
    [
        ("/proj/src/a.py", "src/a.py"),
        ("`src/./b.py`", "src/b.py"),
        ("src/../c.py", "c.py"),
        ("/elsewhere/x.py", "/elsewhere/x.py"),
        ("", ""),
    ],
)
def test_normalize(path: str, rel: str) -> None:
    assert ft.normalize(path, ROOT) == rel


def test_a_project_reached_through_a_symlink_is_one_root(tmp_path: Path) -> None:
    """`--project` given through a link while the session ran in the real folder, or the
    reverse: the files are the project's, relative, whichever way each side names it."""
    real = tmp_path / "proj"
    (real / "src").mkdir(parents=True)
    link = tmp_path / "projlink"
    link.symlink_to(real)
    for root, written in [(link, real), (real, link)]:
        assert ft.normalize(f"{written}/src/a.py", root) == "src/a.py"
        assert ft.normalize(f"{written}/src/new.py", root) == "src/new.py"  # not there yet
        assert ft.normalize(str(written), root) == "."
    assert ft.normalize(f"{tmp_path}/elsewhere/x.py", link) == f"{tmp_path}/elsewhere/x.py"


def test_merge_keeps_model_rows_recomputes_ref_and_adds_unlisted() -> None:
    model = [
        ft.Row("src/auth/token.py", "added expiry check", "done", "+999/-999"),
        ft.Row("/proj/docs/notes.md", "wrote notes", "wip", "new"),
        ft.Row("src/auth/token.py", "duplicate row", "wip", ""),
    ]
    git_refs = {
        "src/auth/token.py": "+42/-3",
        "src/auth/new.py": "new",
        ".claude/state/session/PARKED.md": "+1/-0",
    }
    written = ["/proj/scripts/run.sh", "src/auth/token.py"]
    rows = ft.merge(model, git_refs, written, ROOT)
    assert [(r.file, r.change, r.state, r.ref) for r in rows] == [
        ("src/auth/token.py", "added expiry check", "done", "+42/-3"),
        ("docs/notes.md", "wrote notes", "wip", "—"),
        ("src/auth/new.py", "", "unlisted", "new"),
        ("scripts/run.sh", "", "unlisted", "—"),
    ]


def test_merge_expands_a_copied_directory_row() -> None:
    """The brief folds big tables; a model copying `src/` must not make files appear twice."""
    refs = {f"src/m{i}.py": "+1/-1" for i in range(30)} | {"README.md": "+1/-0"}
    skeleton, note = ft.group(ft.merge([], refs, [], ROOT))
    model, _ = ft.parse_rows(ft.render(skeleton, note).replace("unlisted ×30", "done ×30"))
    model.insert(0, ft.Row("src/m0.py", "rewrote m0", "wip"))
    rows = ft.merge(model, refs, [], ROOT)
    assert _leaf_paths(rows) == sorted(refs)
    by_path = {r.file: r for r in rows}
    assert by_path["src/m0.py"].state == "wip" and by_path["src/m0.py"].change == "rewrote m0"
    assert by_path["src/m7.py"].state == "done"
    grouped, note = ft.group(rows)
    # The model's own row (it has Change text) is kept; the other 29 fold (issue 11 #1).
    assert [r.file for r in grouped] == ["src/m0.py", "src/", "README.md"]
    assert grouped[1].state == "done ×29"


def test_merge_keeps_a_directory_row_with_nothing_observed_under_it() -> None:
    rows = ft.merge([ft.Row("lib/", "vendored", "done", "—")], {}, [], ROOT)
    assert [(r.file, r.change, r.state) for r in rows] == [("lib/", "vendored", "done")]


def test_group_under_the_cap_changes_nothing() -> None:
    rows = [ft.Row(f"d/f{i}.py") for i in range(25)]
    out, note = ft.group(rows)
    assert out == rows and note == ""


def test_forty_files_in_four_directories() -> None:
    rows = []
    for d, state, ref in [
        ("api", "done", "+2/-1"),
        ("web/ui", "wip", "new"),
        ("core", "done", "+1/-0"),
        ("tests", "needs-test", "deleted"),
    ]:
        rows += [ft.Row(f"{d}/f{i}.py", "c", state, ref) for i in range(10)]
    out, note = ft.group(rows)
    assert len(out) <= 25
    assert _leaf_paths(out) == sorted(r.file for r in rows)
    folded = [r for r in out if r.folded]
    assert note == (
        f"_{sum(len(r.members) for r in folded)} files grouped into {len(folded)} directory "
        f"row{'s' if len(folded) != 1 else ''} to keep the table at 25 rows._"
    )
    text = ft.render(out, note)
    assert len([ln for ln in text.splitlines() if ln.startswith("| `")]) == len(out)
    assert text.endswith(note)


def test_folded_row_counts_states_and_sums_refs() -> None:
    members = (
        [ft.Row(f"a/d{i}.py", "", "done", "+3/-1") for i in range(5)]
        + [ft.Row(f"a/w{i}.py", "", "wip", "new") for i in range(2)]
        + [ft.Row("a/r.py", "", "", "renamed from a/q.py")]
    )
    out, note = ft.group(members + [ft.Row(f"b{i}.py") for i in range(20)])
    row = out[0]
    assert row.file == "a/" and len(row.members) == 8
    assert row.state == "done ×5, wip ×2, — ×1"
    assert row.ref == "+15/-5, new ×2, renamed ×1"
    assert ft.render([row]).splitlines()[-1] == (
        "| `a/` (8 files) |  | done ×5, wip ×2, — ×1 | +15/-5, new ×2, renamed ×1 |"
    )
    assert note == "_8 files grouped into 1 directory row to keep the table at 25 rows._"


def test_files_at_the_root_are_never_folded_into_one_root_row() -> None:
    # Issue 19: a `./ (30 files)` row names no file; the table stays over the cap instead.
    rows = [ft.Row(f"f{i}.py", "", "unlisted", "new") for i in range(30)]
    out, note = ft.group(rows)
    assert _names(out) == [r.file for r in rows]
    assert note == ""
    rows.append(ft.Row("src/a.py"))
    rows.append(ft.Row("src/b.py"))
    out, note = ft.group(rows)
    assert "./" not in _names(out) and "src/" in _names(out) and len(out) == 31


def test_single_file_directories_are_lifted_until_they_fit() -> None:
    rows = [ft.Row(f"pkg/m{i}/x.py") for i in range(30)]
    out, note = ft.group(rows)
    assert len(out) <= 25
    assert _leaf_paths(out) == sorted(r.file for r in rows)


paths = st.lists(
    st.lists(st.sampled_from(["a", "b", "c", "src", "lib", "x y"]), min_size=0, max_size=3).flatmap(
        lambda dirs: st.from_regex(r"[a-z]{1,6}\.py", fullmatch=True).map(
            lambda name: "/".join([*dirs, name])
        )
    ),
    max_size=70,
    unique=True,
)


@given(paths, st.integers(min_value=1, max_value=30))
def test_group_never_drops_a_file_and_respects_the_cap(files: list[str], cap: int) -> None:
    rows = [ft.Row(f, "", "done", "+1/-1") for f in files]
    out, note = ft.group(rows, cap)
    assert _leaf_paths(out) == sorted(files)
    assert len(out) <= max(cap, _fewest_rows(files))
    assert "./" not in _names(out)
    if len(out) < len(files):
        assert note
    assert sum(int(r.ref.split("/")[0][1:]) for r in out) == len(files)


def _fewest_rows(files: list[str]) -> int:
    """Rows left when everything folds as far as it may: root files, one per top directory."""
    return len({f.split("/")[0] + ("/" if "/" in f else "") for f in files})


def test_the_most_worked_files_keep_their_own_rows() -> None:
    rows = [ft.Row(f"src/api/h{i}.py") for i in range(20)] + [
        ft.Row(f"web/ui/c{i}.tsx") for i in range(20)
    ]
    weights = {"src/api/h3.py": 9, "web/ui/c7.tsx": 4, "web/ui/c8.tsx": 1}
    out, note = ft.group(rows, cap=10, weights=weights)
    assert len(out) == 4
    names = _names(out)
    assert "src/api/h3.py" in names and "web/ui/c7.tsx" in names
    assert {"src/api/", "web/ui/"} <= set(names)
    assert next(r for r in out if r.file == "src/api/").members.__len__() == 19
    assert note == "_38 files grouped into 2 directory rows to keep the table at 10 rows._"
    # Only as far as the cap needs: one folded directory is enough for 25 rows.
    out, _ = ft.group(rows, weights=weights)
    assert len(out) == 22 and sum(r.folded for r in out) == 1


def test_a_group_left_with_one_file_gives_way_to_it() -> None:
    rows = [ft.Row(f"a/x{i}.py") for i in range(3)] + [ft.Row(f"b/y{i}.py") for i in range(12)]
    weights = {"a/x0.py": 5, "a/x1.py": 4, "a/x2.py": 3, "b/y0.py": 2}
    out, note = ft.group(rows, cap=6, weights=weights)
    # a/ comes apart file by file: x0 out (a/ of two), x1 out (x2 alone, a row of its
    # own, no group of one), x2 has no group left to leave; then b/y0 while the cap allows.
    assert _names(out) == ["a/x0.py", "a/x1.py", "a/x2.py", "b/y0.py", "b/"]
    assert len(next(r for r in out if r.file == "b/").members) == 11
    assert note == "_11 files grouped into 1 directory row to keep the table at 6 rows._"
    # At the cap, no more come out, however worked on.
    out, _ = ft.group(rows, cap=3, weights=weights)
    assert _names(out) == ["a/x0.py", "a/", "b/"]


def test_the_deepest_shared_directories_fold_first() -> None:
    rows = [ft.Row(f"src/api/v1/h{i}.py") for i in range(15)]
    rows += [ft.Row(f"src/api/v2/h{i}.py") for i in range(15)]
    rows += [ft.Row("src/main.py")]
    out, _ = ft.group(rows, cap=10)
    assert _names(out) == ["src/api/v1/", "src/api/v2/", "src/main.py"]
    out, _ = ft.group(rows, cap=2)
    assert _names(out) == ["src/api/", "src/main.py"]


def test_render_escapes_pipes() -> None:
    text = ft.render([ft.Row("a|b.py", "x | y", "done", "+1/-0")])
    assert text.splitlines()[-1] == "| `a\\|b.py` | x \\| y | done | +1/-0 |"
    rows, _ = ft.parse_rows(text)
    assert (rows[0].file, rows[0].change) == ("a|b.py", "x | y")


# -- issue 11 #1: folding keeps the model's rows, each directory once, counts add up ----------
def _names(rows: list[ft.Row]) -> list[str]:
    return [r.file for r in rows]


def _state_total(row: ft.Row) -> int:
    return sum(int(part.rsplit("×", 1)[1]) for part in row.state.split(", "))


def _vendor(n: int) -> list[ft.Row]:
    model = [ft.Row("src/app.py", "new token parser", "done", "+12/-3")]
    return model + [ft.Row(f"vendor/pkg{i}/lib/index.js", "", "unlisted", "new") for i in range(n)]


@pytest.mark.parametrize("n", [30, 60])
def test_vendor_folders_fold_into_one_row_and_the_model_row_survives(n: int) -> None:
    out, note = ft.group(_vendor(n))
    assert [(r.file, r.change, r.state, r.ref) for r in out if not r.folded] == [
        ("src/app.py", "new token parser", "done", "+12/-3")
    ]
    assert _names(out) == ["src/app.py", "vendor/"]
    vendor = out[1]
    assert len(vendor.members) == n and vendor.state == f"unlisted ×{n}"
    assert vendor.ref == f"new ×{n}"
    assert note == f"_{n} files grouped into 1 directory row to keep the table at 25 rows._"
    assert f"| `vendor/` ({n} files) |  | unlisted ×{n} | new ×{n} |" in ft.render(out, note)


def test_a_folded_directory_is_merged_with_a_later_fold_of_it() -> None:
    rows = [ft.Row(f"a/b{i}/c{j}.py", "", "done", "+1/-0") for i in range(6) for j in range(5)]
    rows += [ft.Row(f"a/x{i}.py", "", "wip", "new") for i in range(3)]
    out, _ = ft.group(rows, cap=4)
    assert len(out) <= 4
    assert len(_names(out)) == len(set(_names(out)))
    assert sum(len(r.leaves()) for r in out) == 33


def test_model_rows_fold_last() -> None:
    """20 rows the model described, 10 plain top-level files and 10 under docs/: docs/ folds,
    the model's rows and the root files stay."""
    model = [ft.Row(f"src/m{i}.py", f"change {i}", "done", "+1/-1") for i in range(20)]
    plain = [ft.Row(f"docs/d{i}.md", "", "unlisted", "new") for i in range(10)]
    out, note = ft.group(model + plain)
    assert [r for r in out if not r.folded] == model
    assert _names(out)[-1] == "docs/" and len(out[-1].members) == 10
    assert note == "_10 files grouped into 1 directory row to keep the table at 25 rows._"


def test_root_files_stay_while_a_directory_can_fold() -> None:
    rows = [ft.Row(f"f{i}.txt", "", "unlisted", "new") for i in range(20)]
    rows += [ft.Row(f"docs/d{i}.md", "", "unlisted", "new") for i in range(10)]
    out, _ = ft.group(rows)
    assert "./" not in _names(out) and "docs/" in _names(out) and len(out) == 21


def test_model_rows_folded_at_last_keep_their_text_in_the_group() -> None:
    model = [ft.Row(f"src/m{i}.py", f"change {i}", "done", "+1/-1") for i in range(30)]
    model += [ft.Row(f"lib/l{i}.py", "vendored", "done", "new") for i in range(3)]
    out, _ = ft.group(model, cap=25)
    assert len(out) <= 25
    text = ft.render(out)
    for i in range(30):
        assert f"change {i}" in text
    assert "vendored" in text
    src = next(r for r in out if r.file == "src/")
    assert "`m7.py`: change 7" in src.change
    rows, _ = ft.parse_rows(text)
    assert next(r for r in rows if r.file == "src/").change == src.change


def test_one_file_is_singular() -> None:
    row = ft._folded("pkg", [ft.Row("pkg/a.py", "", "done", "+1/-0")])
    assert ft.render([row]).splitlines()[-1] == "| `pkg/` (1 file) |  | done ×1 | +1/-0 |"
    _, note = ft.group([ft.Row(f"d{i}/a.py") for i in range(2)] + [ft.Row("d0/b.py")], cap=2)
    assert note == "_2 files grouped into 1 directory row to keep the table at 2 rows._"


@given(paths, st.integers(min_value=1, max_value=30), st.data())
def test_group_keeps_every_change_each_directory_once_and_counts_add_up(
    files: list[str], cap: int, data: st.DataObject
) -> None:
    described = data.draw(st.lists(st.booleans(), min_size=len(files), max_size=len(files)))
    rows = [
        ft.Row(f, f"did {f}" if d else "", "done" if d else "unlisted", "+2/-1")
        for f, d in zip(files, described, strict=True)
    ]
    out, note = ft.group(rows, cap)
    assert len(out) <= max(cap, _fewest_rows(files))
    assert len(_names(out)) == len(set(_names(out)))  # each directory (and file) once
    assert _leaf_paths(out) == sorted(files)
    text = ft.render(out, note)
    for r in rows:
        if r.change:
            assert r.change in text, r.file
    for r in out:
        if r.folded:
            assert _state_total(r) == len(r.members)
            assert r.ref == f"+{2 * len(r.members)}/-{len(r.members)}"
    grouped = [r for r in out if r.folded]
    if grouped:
        n = sum(len(r.members) for r in grouped)
        assert note.startswith(f"_{n} file{'s' if n != 1 else ''} grouped into {len(grouped)} ")
    assert "./" not in _names(out)


def test_windows_paths_are_made_relative_to_a_windows_root() -> None:
    root = "D:\\repo\\app"
    assert ft.normalize("D:\\repo\\app\\src\\a.py", root) == "src/a.py"
    assert ft.normalize("d:\\Repo\\App\\src\\b.py", root) == "src/b.py"  # Windows folds case
    assert ft.normalize("E:\\other\\c.py", root) == "E:\\other\\c.py"
    rows = ft.merge([], {}, ["D:\\repo\\app\\src\\a.py", "src/a.py"], Path(root))
    assert [r.file for r in rows] == ["src/a.py"]  # one row per file


# -- names holding a backtick or a pipe --------------------------------------------------------
_ODD_NAMES = ["a`b.py", "x``y.py", "c|d.py", "e\\|f.py", "g`|`h.py", "`lead.py", "tail`.py"]


def _cells_of(line: str) -> int:
    """How many cells a row has: its pipes, less the escaped ones, less one."""
    return line.replace("\\|", "").count("|") - 1


@pytest.mark.parametrize("name", _ODD_NAMES)
def test_a_name_with_a_backtick_or_a_pipe_stays_one_row_and_reads_back(name: str) -> None:
    """The row keeps its four cells, the name is one code span (a longer fence around a
    backtick: `` a`b.py ``), and `parse_rows` — which `dump` merges the model's table
    with — reads the same name back, Change, State and Ref in their columns."""
    row = ft.Row(name, "the | change", "done", "+1/-0")
    table = ft.render([row])
    line = table.splitlines()[2]
    assert _cells_of(line) == 4, line
    rows, notes = ft.parse_rows(table)
    assert [(r.file, r.change, r.state, r.ref) for r in rows] == [
        (name, "the | change", "done", "+1/-0")
    ]
    assert notes == []


def test_a_folded_row_names_its_file_with_a_backtick_in_one_span() -> None:
    members = [ft.Row("src/a`b.py", "fixed", "done"), ft.Row("src/c.py", "other", "done")]
    rows, _ = ft.group(members + [ft.Row(f"lib/{i}.py") for i in range(30)], cap=2)
    (src,) = [r for r in rows if r.file == "src/"]
    assert src.change == "`` a`b.py ``: fixed; `c.py`: other"
    line = next(ln for ln in ft.render(rows).splitlines() if ln.startswith("| `src/`"))
    assert _cells_of(line) == 4, line


def test_a_hand_written_row_in_single_backticks_keeps_its_whole_name() -> None:
    rows, _ = ft.parse_rows("| `a`b.py` | tick | done | new |\n| `src/` (3 files) | | | |\n")
    assert [r.file for r in rows] == ["a`b.py", "src/"]


def test_merge_keeps_one_row_for_a_name_with_a_backtick() -> None:
    """`dump` parses the model's table (copied from the brief) and merges git's paths into
    it: the name read back is git's, so no second `unlisted` row appears."""
    brief = ft.render([ft.Row(n, "", "unlisted", "new") for n in ["a`b.py", "x``y.py", "c|d.py"]])
    model_rows, _ = ft.parse_rows(brief.replace("| unlisted |", "| done |"))
    refs = {"a`b.py": "new", "x``y.py": "new", "c|d.py": "new"}
    merged = ft.merge(model_rows, refs, [], ROOT)
    assert [(r.file, r.state) for r in merged] == [
        ("a`b.py", "done"),
        ("x``y.py", "done"),
        ("c|d.py", "done"),
    ]
