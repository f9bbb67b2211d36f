"""Ordinary forms: loose ends said in everyday words, on short sessions written here.

The corpus shows how 39 sessions put things; a user's next session puts them its own way.
Each case here is a short Claude Code session built around one sentence written from how
people and agents ordinarily say it — "Next steps:", "isn't implemented yet", "let's park
the pagination idea", "still broken" as the last words, "There are no uncommitted changes",
a todo list's last item left in progress when the closing text says it is done, a first
message that only gets to know the project — and says whether the sweep should list
something (or take it for the Goal). None is taken from the corpus.

It is a check of coverage, not of generalisation: the forms were written by whoever changes
extraction, and fixing what it finds is tuning on it. What it is for: a rule that fails an
ordinary form fails a user whose session says it that way, whatever the corpus holds. It
found the bugs fixed on 2026-12-03 (docs/fidelity.md); the forms it still misses are listed
when it runs. `python -m bench.fidelity` prints it; nothing is gated.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import Any

_APP = "/home/dev/app"
_clock = count()


def _record(kind: str, message: dict[str, Any]) -> dict[str, Any]:
    n = next(_clock)
    return {
        "isSidechain": False,
        "sessionId": "forms",
        "cwd": _APP,
        "type": kind,
        "message": message,
        "timestamp": f"2026-12-03T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
    }


def write(path: Path, records: list[dict[str, Any]]) -> None:
    """The records as a transcript's lines, compact as Claude Code writes them: the reader's
    fast paths take such lines (spaced ones it parses whole, which hid a fast path's bug)."""
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records), "utf-8")


def _user(text: str) -> list[dict[str, Any]]:
    return [_record("user", {"role": "user", "content": text})]


def _reply(*blocks: dict[str, Any]) -> dict[str, Any]:
    return _record("assistant", {"id": f"m{next(_clock)}", "role": "assistant", "content": blocks})


def _say(text: str) -> list[dict[str, Any]]:
    return [_reply({"type": "text", "text": text})]


def _call(name: str, **inputs: Any) -> list[dict[str, Any]]:
    tool_id = f"t{next(_clock)}"
    call = _reply({"type": "tool_use", "id": tool_id, "name": name, "input": inputs})
    done = {"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}
    return [call, _record("user", {"role": "user", "content": [done]})]


def _edit(name: str) -> list[dict[str, Any]]:
    return _call("Edit", file_path=f"{_APP}/{name}", old_string="a", new_string="b")


def _todos(*items: tuple[str, str]) -> list[dict[str, Any]]:
    todos = [{"content": text, "status": status, "activeForm": text} for text, status in items]
    return _call("TodoWrite", todos=todos)


# ---------------------------------------------------------------- the sessions


def _closing(text: str) -> list[dict[str, Any]]:
    """A request, its work, and the closing text."""
    return [*_user("Fix issue 42 and make sure the tests pass"), *_edit("fix.py"), *_say(text)]


def _deferred(text: str) -> list[dict[str, Any]]:
    """The user puts something off; the work they asked for then lands, and so does more."""
    return [
        *_user(text),
        *_edit("crash.py"),
        *_say("Fixed the crash: the null check was missing."),
        *_user("now bump the version to 1.4"),
        *_edit("pyproject.toml"),
        *_say("Bumped the version to 1.4."),
    ]


def _last_words(text: str) -> list[dict[str, Any]]:
    """The session ends on the user's message, after a fix was reported."""
    return [
        *_user("fix the login redirect"),
        *_edit("login.py"),
        *_say("Fixed the redirect: it keeps the next= parameter now."),
        *_user(text),
    ]


def _answered(question: str) -> list[dict[str, Any]]:
    """A question answered in words, an offer after: the offer is open, the question not."""
    cause = "The fixture is shared between tests, so the session leaks. Want me to fix it?"
    return [*_user(question), *_say(cause)]


def _told(request: str) -> list[dict[str, Any]]:
    """A request, met with a reply that changes nothing and ends on an offer: a review or an
    explanation asked for is given, work asked for still waits on the answer."""
    review = (
        "Two things stand out: the retry loop never backs off, and the timeout is read "
        "twice. Want me to fix them?"
    )
    return [*_user(request), *_say(review)]


def _offered(closing: str) -> list[dict[str, Any]]:
    """Work asked for and done; the reply ends offering more, or handing the work back."""
    return [*_user("update the grid search to use the new pipeline"), *_edit("search.py"),
            *_say(f"Updated the grid search to use the new pipeline. {closing}")]  # fmt: skip


# (closing, the request left open?): an offer to run more is the assistant's, not the user's
_OFFERED = [
    ("Do you want me to rerun the full grid search now?", False),
    ("Should I re-run the benchmark to compare?", False),
    ("Want me to take a look at the other callers too?", False),
    ("I can rerun it on the shared box if you like.", False),
    ("Please rerun it on the shared box and tell me the numbers.", True),
    ("Try it and let me know if the scores look right.", True),
]


def _numbered(reply: str) -> list[dict[str, Any]]:
    """A review listing what is left by number; the user picks some; the work is done."""
    review = (
        "Read through the invitations PR. Still open:\n"
        "1. **Validation** inline in the controller, not a FormRequest\n"
        "2. No index on `(team_id, email)`\n3. Mail sent synchronously in the request\n"
    )
    asked = "go through the review comments on the invitations PR"
    return [*_user(asked), *_say(review), *_user(reply), *_edit("InvitationController.php"),
            *_say("Done, tests pass.")]  # fmt: skip


# (reply, the first item still listed?): the items picked by number are the work done
_NUMBERED = [
    ("do 1 and 2", False),
    ("fix 1 2 and 3 on the branch", False),
    ("ok, 1 and 3 please", False),
    ("yes to 1+2, leave the mail for now", False),
    ("let's do option 1", False),
    ("do 2. the validation is fine as it is", True),
    ("just 3 for now", True),
    ("2 and 3", True),
]


def _unchanged(case: str) -> list[dict[str, Any]]:
    """A request, and a reply that changed no file: "request | closing"."""
    request, closing = case.split(" | ")
    return [*_user(request), *_call("Bash", command="npx jest orderTotals"), *_say(closing)]


# (request | closing, the request left open?): work asked for and none done is open; a
# review or an answer asked for is the reply itself
_UNCHANGED = [
    (
        "the bulk discount test fails randomly in CI. fix it | Ran it 50 times, no failure. I "
        "couldn't reproduce it, so I haven't changed anything.",
        True,
    ),
    (
        "fix the flaky checkout test | I haven't made any changes yet: it passed 200 times here.",
        True,
    ),
    (
        "make the export faster | No changes made. The export is bound by the database, not the "
        "code.",
        True,
    ),
    ("review the diff on this branch | Two nits in the parser; I haven't changed anything.", False),
    (
        "why does the bulk discount test fail on weekends? | It reads the clock unmocked. I "
        "haven't changed anything.",
        False,
    ),
    (
        "fix the flaky checkout test | Fixed: it waited on a real timer. I didn't change anything "
        "else.",
        False,
    ),
]

_WORK = "Add retry with backoff to the uploader"


def _opened(first: str) -> list[dict[str, Any]]:
    """A first message, answered; then the work is asked for and done."""
    return [*_user(first), *_say("Sure."), *_user(_WORK), *_edit("upload.py"), *_say("Added.")]


def _commanded(prompt: str) -> list[dict[str, Any]]:
    """A command typed with no arguments (an agent's or a workflow's), its menu, a pick from
    it, then the work asked for and done."""
    typed = ("<command-message>sprint:dev</command-message>\n<command-name>/sprint:dev"
             "</command-name>\n<command-args></command-args>")  # fmt: skip
    expanded = _record("user", {"role": "user", "content": [{"type": "text", "text": prompt}]})
    expanded["isMeta"] = True
    menu = "Here is my menu:\n1. *help\n2. *develop-story\n3. *review\nPick one."
    return [*_user(typed), expanded, *_say(menu), *_user("2"), *_say("Which story?"),
            *_user(_WORK), *_edit("upload.py"), *_say("Added.")]  # fmt: skip


def _recapped(recap: str) -> list[dict[str, Any]]:
    """Work asked for and done, then Claude Code's recap for a user coming back: a system
    record its model writes "in under 40 words, 1-2 plain sentences", leading "with the
    overall goal and current task, then the one next action"."""
    record = {"parentUuid": None, "isSidechain": False, "type": "system",
              "subtype": "away_summary", "content": recap, "isMeta": False,
              "timestamp": f"2026-12-03T10:{next(_clock) % 60:02d}:00.000Z"}  # fmt: skip
    return [*_user(_WORK), *_edit("upload.py"), *_say("Added."), record]


def _ticked(closing: str) -> list[dict[str, Any]]:
    """A todo list whose last item is left in progress; the closing text reports on it."""
    export, test = "Add the CSV export endpoint", "Write a test for the CSV export"
    return [
        *_user("Add a CSV export and a test for it"),
        *_todos((export, "in_progress"), (test, "pending")),
        *_edit("export.py"),
        *_todos((export, "completed"), (test, "in_progress")),
        *_edit("test_export.py"),
        *_say(closing),
    ]


_OPEN_CLOSINGS = [
    "Done.\n\nNext steps:\n- Wire the parser into the import command\n- Add a fixture for CRLF",
    "The migration runs.\n\n**Remaining work:**\n1. Backfill the audit_log table\n2. Drop a column",
    "Implemented the cache.\n\nStill to do:\n- eviction when the cache exceeds 500 MB",
    "Refactor complete.\n\n### What's left\n- The billing service still calls the old client",
    "All green.\n\nFollow-ups:\n- Rotate the staging API key",
    "Shipped the endpoint.\n\nKnown limitations:\n- Pagination is not supported yet",
    "Fixed the race.\n\nTODO:\n- add a regression test for the double-dispatch case",
    "The search page works.\n\nNot done yet:\n- keyboard navigation in the results list",
    "Added the export button.\n\nOpen items:\n- CSV escaping of embedded newlines",
    "Deployed to staging.\n\nPending:\n- the production deploy after the change freeze",
    "Migration written. Two things I need from you:\n1. The production URL\n2. Is downtime fine",
    "Fixed the redirect. I left the password-reset flow alone for now; it needs its own PR.",
    "The retries are in. Rate limiting is out of scope for this PR; it can go in a follow-up.",
    "I've done the happy path. Error handling for network timeouts isn't implemented yet.",
    "Build passes. Two flaky tests are unrelated to this change and still fail.",
    "Committed as a1b2c3d. I didn't push: run `git push` when you're ready.",
    "The changes are ready but uncommitted.",
    "I didn't touch the reporting queries yet; they still read the old column.",
    "The UI is updated. I haven't run the end-to-end tests; they need the docker stack.",
    "Added the endpoint. I couldn't run the integration tests: they need a database.",
    "Can't test the login flow without valid credentials.",
    "Fixed the crash. Pagination is not part of this PR.",
    "Fixed the crash. We'll need to handle pagination separately.",
    "Fixed the crash. The only thing left is pagination.",
    "Everything is done except pagination.",
    "Fixed the crash. Next I'd tackle pagination.",
    "Renamed the module. Should I also update the changelog?",
    "It works for PostgreSQL. Do you want me to add the same fix for MySQL?",
    "Two options: a lock around the writer, or an append-only log. Which do you prefer?",
    "Done. Would you like me to open a PR?",
    "Let me know if you want me to add tests for the new helper.",
    "If you'd like, I can also add a --dry-run flag.",
    "Added the flag. Should the default be on or off? For now it's off.",
    "Fixed the parser. The next step would be to wire it into the import command.",
    "Fixed the parser. If the CRLF test keeps failing, the next thing to try is normalising.",
    "Fixed the parser. One remaining issue: the cache isn't invalidated on logout.",
    "Fixed the parser. The only remaining failure is test_timeout, which looks flaky.",
    "Fixed the parser. Unfortunately I couldn't get the Windows build to pass.",
    "Fixed the parser. Once you've set STRIPE_KEY, I can finish the billing integration.",
    "Fixed the parser. Let me know once the staging deploy finishes so I can verify it.",
    "Fixed the parser. I've stopped here because the last step needs production credentials.",
    "Fixed the parser. We should also add the same check to the export path at some point.",
    "Fixed the parser. Eventually the import command should use the new parser too.",
    "Fixed the parser. I'd recommend adding a test for the CRLF case.",
    "Fixed the parser. Consider adding rate limiting before this goes to production.",
    "Fixed the parser. I can also add a --verbose flag if that would help.",
    "Fixed the parser. I'm happy to wire it into the import command next.",
    "Fixed the parser. Not sure if you want the old parser removed; I left it in place.",
    # a check reported failing as the work stands
    "Fixed the parser.\n\n- ✅ `cargo build`\n- ⚠️ `cargo test` — 2 failures in `tests/proxy.rs`",
    "Fixed the parser.\n\nTesting: `cargo test` (fails: linking needs `libssl-dev` here)",
    "Fixed the parser.\n\n`npm test`: 112 passed, 2 failed.",
    # a stopgap, a step due before the next release, a switch left off
    "Pinned `sharp` to 0.32 — a temporary workaround until the upstream fix for node 22 lands.",
    "Fixed the parser. **Note:** the migration must run before the next deploy.",
    "Fixed the parser. The new parser is still off in production.",
    "Wired the parser into the import. I need the sample file from your bank to test it.",
    # what the work looked for and did not find, work done in part, or waiting on something
    "Looked into it: I wasn't able to find where the config is loaded.",
    "Sped up the parser. The small-file benchmark shows a 3% regression I couldn't explain.",
    "Fixed the crash. This is only a partial fix — the root cause is in the tokenizer.",
    "Opened #57 as a draft until the screenshots are added.",
    "Stubbed the v2 routes. Once #42 is merged I can rebase this and fill in the handlers.",
    "The migration for the email index is written but not applied to any database.",
    "Fixed the race. Follow-up: give each worker its own temp dir.",
    "Created the release branch and bumped the version. I'll wait for your go-ahead to push.",
    "Fixed the leak. There's a second, slower climb in memory that I didn't chase.",
    "Switched the grid to next/image. The detail page has the same raw tags; I'll convert "
    "those next in the same way.",
    "Wired the parser into the import; whether to keep the old one is yours to decide.",
]
# A closing text that asks the user something, wherever in it and however put.
_ASKING_CLOSINGS = [
    "Which database should we use, Postgres or SQLite? Meanwhile I've stubbed the repository.",
    "I added the endpoint. Should it require auth? I left it open and wrote the tests.",
    "Let me know which option you prefer: a lock around the writer or an append-only log.",
    "Tell me whether to keep the old endpoint around for a release.",
    "One question: do you want the cache per user or global?",
    "Quick question before I go further — is the 500 MB limit per tenant?",
    "Could you confirm the production URL so I can finish the config?",
    "Let me know if the staging deploy should use the new key.",
    "Thoughts on renaming the module to `sync`?",
    "Any preference on the name?",
    "Shall I go ahead and remove the deprecated endpoints?",
    "Ready for me to open the PR?",
    "I can either patch the vendored copy or bump the dependency. Which would you prefer?",
]
# A closing text's list under a lead: what is left, or what was done.
_LEFT_LEADS = [
    "Suggested next steps:", "Up next:", "What's next:", "Still needed:", "Left for later:",
    "Ideas for later:", "Blocked:", "What I didn't do:", "Things to verify:", "Manual steps:",
    "Before merging:", "Action items:", "For you to do:", "You'll need to:", "Nice to have:",
    "Possible improvements:", "Recommendations:", "Limitations:", "Not checked:",
]  # fmt: skip
# …and in other languages, bold alone or ending on a colon ("：" in Chinese and Japanese)
_LEFT_LEADS_ABROAD = [
    "Следующие шаги", "Что осталось:", "下一步", "待办事项：", "次のステップ", "残タスク：",
    "Próximos pasos", "Pendiente:", "Nächste Schritte", "Noch offen:", "Próximos passos",
    "Prochaines étapes :", "Reste à faire", "다음 단계", "남은 작업:", "Prossimi passi",
    "Dalsze kroki", "Do zrobienia:", "Proximos pasos:",
]  # fmt: skip
_DONE_LEADS_ABROAD = [
    "Итог", "Что сделано:", "概要", "修改内容：", "変更点", "Resumen", "Cambios:",
    "Zusammenfassung", "Änderungen:", "Resumo", "Résumé", "Modifications :", "요약",
    "변경 사항:", "Riepilogo", "Podsumowanie",
]  # fmt: skip
_DONE_LEADS = [
    "Changes:", "What I did:", "Summary:", "Files changed:", "Verified:", "Fixed:",
    "Skipped (not worth the risk):", "Key decisions:", "Root cause:", "Commits:",
]  # fmt: skip


def _loosely(lead: str) -> list[dict[str, Any]]:
    """A closing list laid out as paragraphs: a blank line between the items, the second
    item's text wrapped onto an indented line."""
    items = ("1. **Backfill** the audit_log table: the migration left the old rows.\n\n"
             "2. **Rotate the staging key**, which was printed in the CI log;\n"
             "   rotate it before the next deploy.\n")  # fmt: skip
    return _closing(f"Fixed the crash; tests pass.\n\n**{lead}**\n\n{items}")


def _tersely(lead: str) -> list[dict[str, Any]]:
    """A closing list of a word or two per item."""
    return _closing(f"Fixed the crash; tests pass.\n\n**{lead}**\n- pagination\n- rate limits\n")


def _led(lead: str) -> str:
    items = "- Backfill the audit_log table\n- Rotate the staging key"
    return f"Fixed the crash; tests pass.\n\n**{lead}**\n{items}"


_QUIET_CLOSINGS = [
    "Fixed the parser. I needed the sample from the fixtures folder, which had the CRLF case.",
    "Fixed the parser. The lock must be taken before writing, so I moved it up.",
    "Fixed the parser. The old parser is still off, as agreed; the new one still offers CRLF.",
    "Fixed the parser and the 2 failing tests; `npm test`: 114 passed, 0 failed.",
    "Fixed the parser. It reproduced locally in 7 of 30 runs before; none in 100 since.",
    "Fixed the parser. To rerun: open DAG Runs, select the three failed runs, then Clear.",
    "Done: the parser handles nested quotes now, and all 42 tests pass.",
    "Fixed. The root cause was an off-by-one in the slice; the test covers it now.",
    "Committed and pushed as a1b2c3d; the PR is open at #12 and CI is green.",
    "Next, I updated the README to describe the new flag, and added an example.",
    "The remaining warnings were in vendored code, which I've excluded from the lint config.",
    "The TODO comments in parser.py are resolved and removed.",
    "Everything in the plan is implemented and tested.",
    "Fixed the slice bound; all tests pass. Let me know if anything else comes up!",
    "Fixed the slice bound. Let me know if you'd like any changes.",
    "Committed as a1b2c3d. There are no uncommitted changes.",
    "All migrations are applied and nothing is pending.",
    "Pushed to main; the working tree is clean, with nothing uncommitted.",
    "Done. Old clients can't run the new migrations, so they're gated on the version.",
    "Fixed the crash; the retry is part of the upload client now.",
    "Fixed the crash. Next, I ran the full suite: all 42 tests pass.",
    "Fixed the crash. The next step was to run the migrations, and they all passed.",
    "Fixed the crash. The only remaining failure was a flaky test, which I fixed too.",
    "Fixed the crash. Once I had the fixture, I could reproduce it; the test covers it now.",
    "Fixed the crash. I considered adding a cache, but the lookups are fast enough.",
    "Renamed it everywhere; I couldn't find any other callers of the old name.",
    "Fixed the crash. Once the lock is released, the next writer goes ahead as before.",
    "Fixed the crash; the follow-up tests from the review pass too.",
    "Draft PR #12 is open: the description says what changed and how it was tested.",
    "Merged main in. I renamed yours to `0057_invoice_lines.py` so the migrations stay in order.",
    "Fixed the parser. Specs without a host still fail with a usage error, which is intended.",
    "Fixed the parser; malformed lines still fail fast, as expected.",
]
_DEFERRALS = [
    "let's do the pagination later, first fix the crash",
    "park the pagination idea, fix the crash first",
    "we'll handle pagination in another PR. fix the crash for now",
    "skip pagination for now and fix the crash",
    "make a note to add pagination later, but fix the crash first",
    "remind me to add pagination. fix the crash now",
    "add pagination to the backlog; the crash comes first",
    "let's shelve the pagination work for now and fix the crash",
    "pagination can wait, fix the crash",
    "ignore pagination for the moment, fix the crash",
    "hold off on pagination until the crash is fixed",
    "pagination is out of scope for today, fix the crash",
    "let's not worry about pagination for now, fix the crash",
    "put a pin in pagination and fix the crash",
    "let's table pagination, fix the crash first",
    "pagination isn't a priority right now, fix the crash",
    "let's punt on pagination and fix the crash",
    "pagination can come later, fix the crash",
    "pagination is a nice-to-have, fix the crash",
    "we'll do pagination next sprint; fix the crash",
    "pagination later. fix the crash first",
    "leave pagination for the next release, fix the crash",
    "fix the crash. we need pagination too next week, remind me",
    "fix the crash, we'll deal w/ pagination some other time",
    "pagination is for another day, fix the crash",
    "fix the crash. pagination we'll do eventually",
    "fix the crash; pagination we'll figure out after the launch",
    "fix the crash first, pagination is phase 2",
    "fix the crash. ignore pagination for this release",
    "fix the crash. pagination is a v2 thing",
    "fix the crash. we'll get to pagination another day",
    "fix the crash. pagination goes on the backlog",
    "fix the crash — not touching pagination until the redesign lands",
    "fix the crash. remind me about pagination next week",
    "fix the crash. hold pagination until marketing signs off",
    "fix the crash. pagination: parked",
    "fix the crash now. pagination can be a follow-up, make a note somewhere",
    "fix the crash, make pagination a follow-up pr",
    # …in other languages (the reply in English: what is read is the user's words)
    "почини краш. пагинацию давай на потом",
    "修一下崩溃。分页以后再做",
    "クラッシュを直して。ページングは後回しでいいです",
    "arregla el crash, la paginación para después",
    "fix den Crash, die Paginierung machen wir nächste Woche",
    "corrige le crash, la pagination on verra plus tard",
    "arruma o crash, a paginação fica pra depois",
    "크래시 고쳐줘. 페이지네이션은 나중에",
]
_NOT_DEFERRALS = [
    "fix the crash, then add pagination",
    "fix the crash in the pagination code",
    "the crash happens later in the flow, after pagination",
    "fix the crash; I tested pagination earlier and it works",
    "forget about pagination, we're dropping it. fix the crash",
    "fix the crash in the users table",
    "the crash came back two days later, fix it",
    "the crash came back another time, on the other day's build. fix it",
    "the crash eventually goes away if I restart, but fix it properly",
    "fix the crash; it started after lunch when the cron ran, after the launch",
    "fix the crash. we already shipped pagination in phase 2",
    "fix the crash in the v2 endpoint; the lock is held until the write finishes",
    "hold on, until when is the token valid? fix the crash",
    "fix the crash; the pagination page could be a follow-up email to the customer",
    "ran it on staging, passed the migration, now fails later. fix the crash",
    "the worker starts fine, crashes later. fix the crash",
    # …in other languages
    "почини краш, потом закоммить",
    "クラッシュを直して、その後でテストを回して",
    "arregla el crash y luego sube la versión",
]
_FAILING = ["still broken", "it's still not working", "same error", "nope, the test still fails",
            "всё ещё падает", "还是报错", "まだエラーが出ます", "sigue fallando",
            "geht immer noch nicht",
            "still failing on CI, thanks", "it still shows the old banner. thx"]  # fmt: skip
_THANKS = ["works now, thanks", "perfect", "great, that fixed it", "looks good", "great job",
           "that's all for today", "we're done here, bye!", "👍", "sweet, that’s all",
           "thanks, that’s enough for now", "🚀",
           # how it went, then thanks: no request
           "tested on the pixel, push is arriving now!! thank you very much",
           "deployed, no restarts for 20 min. 👍", "danke!", "the tests pass now. thanks!",
           "merci beaucoup", "cool thanks, deploying this", "great, merging it now",
           # …in other languages
           "funktioniert, vielen Dank", "好了，谢谢！", "動きました、ありがとうございました",
           "deu certo, valeu", "спс, всё ок", "grazie mille",
           # …and "that's enough for now" in other languages
           "ок, на сегодня всё", "好的，先这样吧", "了解、今日はここまでで",
           "vale, por ahora es suficiente", "gut, das reicht erstmal", "beleza, por hoje é só",
           "ok, c'est tout pour aujourd'hui",
           "네, 오늘은 여기까지", "ok, per oggi basta", "dobra, na dziś wystarczy",
           # thanks, then how it went
           "thank you, it reads very natural", "thx! works great on my phone too"]  # fmt: skip
_QUESTIONS = [
    "why does the login test fail?",
    "what's the best way to cache the parsed config?",
    "should we cache the parsed config?",
]
# (request, still waiting when the reply only asks?): asked to be told, the reply is the work.
_TOLD = [
    ("Review the diff on this branch.", False),
    ("can you check whether the upload client is safe to retry", False),
    ("Explain how the upload client handles timeouts.", False),
    ("take a look at the upload client and tell me what you think", False),
    ("don't make any changes yet, just walk me through the retry logic", False),
    ("ok the upload works now, thx. the retry thing - why does it wait so long", False),
    ("cors is fine i checked. the timeout: what is it set to", False),
    ("Add a retry to the upload client.", True),
    ("ok the upload works now. fix the retry thing - why does it wait so long", True),
    ("Review the upload client and fix what you find.", True),
    ("look at the failing upload test and fix it", True),
    ("Don't change the API, just add a retry flag to the upload client.", True),
]
# (first message, does it name the session's work?)
_OPENERS = [
    ("read CLAUDE.md and get familiar with the codebase", False),
    ("explore the codebase and understand the architecture first", False),
    ("look around the repo and tell me what it does", False),
    ("what's the current state of the project?", False),
    ("summarize what we did last time", False),
    ("where did we leave off?", False),
    ("good morning! ready to work?", False),
    ("can you help me with something?", False),
    ("I have a few things for you today", False),
    ("check git status please", False),
    ("pull the latest main please", False),
    ("create a new branch called feature/retry-backoff", False),
    ("install the dependencies first", False),
    ("ok go ahead", False),
    ("fix it", False),
    ("add dark mode", True),
    ("fix issue #42", True),
    ("run the tests and see what fails", True),
    ("review the uploader for race conditions", True),
    ("read the error log and fix the crash on upload", True),
    ("https://github.com/acme/uploader/issues/42", True),
    ("https://acme.atlassian.net/browse/UP-12 can you take this one", True),
    ("https://github.com/acme/uploader", False),
    # a question, answered with no change: the work asked after it is the session's
    ("how does the upload client handle timeouts?", False),
    ("quick question: why is the upload so slow on big files?", False),
]
# (a command's prompt, typed with no arguments): the Goal names the work typed after it
_COMMANDS = [
    '<!-- Powered by BMAD-CORE™ -->\n\n# Developer Agent\n\n```xml\n<agent id="dev"/>\n```',
    "<!-- SPDX-License-Identifier: MIT -->\n<objective>\nRun the sprint workflow.\n</objective>",
    "---\ndescription: The developer agent\n---\n\nYou are the developer agent. Show the menu.",
    "You must fully embody this agent's persona and follow all activation instructions.",
    "# Story workflow\n\nPick a story from the backlog and implement it.",
]
# Claude Code's recaps (as its prompt asks for them): the Goal is their lead, "jitter" in it
_RECAPS = [
    "Goal: make uploads survive rate limits with jittered retries. Backoff is in; next: run "
    "the upload tests.",
    "You're making uploads survive rate limits with jittered retries, and the backoff is "
    "written. Next: run the upload tests. (turn off recaps in /config)",
    "We're hardening the uploader with jittered retries; the tests pass. Next action: commit.",
    "Hardening the uploader with jittered retries. Next: run the tests and commit. (disable "
    "recaps in /config)",
    "Overall goal: jittered retries for the uploader, so rate limits stop failing uploads. "
    "Next: the tests.",
]
_TICKED = [
    ("Done: added the CSV export endpoint and wrote a test for the CSV export.", False),
    ("Added the CSV export endpoint. The test for the CSV export is not written yet.", True),
]

# (group, what a right reading does, session, cases): each case is (sentence, listed?).
Group = tuple[str, str, Callable[[str], list[dict[str, Any]]], list[tuple[str, bool]]]


def _curly(texts: list[str]) -> list[str]:
    return [t.replace("'", "\u2019") for t in texts if "'" in t]


GROUPS: list[Group] = [
    ("closing texts leaving something open", "found", _closing,
     [(t, True) for t in _OPEN_CLOSINGS]),
    ("…the same, with Codex's typographic ’", "found", _closing,
     [(t, True) for t in _curly(_OPEN_CLOSINGS)]),
    ("closing texts leaving nothing", "quiet", _closing, [(t, False) for t in _QUIET_CLOSINGS]),
    ("closing texts asking the user", "found", _closing,
     [(t, True) for t in _ASKING_CLOSINGS]),
    ("closing lists under a lead of what is left", "found", _closing,
     [(_led(t), True) for t in _LEFT_LEADS]),
    ("…in other languages", "found", _closing, [(_led(t), True) for t in _LEFT_LEADS_ABROAD]),
    ("…laid out loosely: the second item found too", "found", _loosely,
     [(t, True) for t in ("Remaining work:", "Next steps:", "Still open:", "Loose ends:",
                          "Suggested next steps:", "Before merging:")]),
    ("…of a word or two each: both found", "found", _tersely,
     [(t, True) for t in ("Still open:", "Next steps:", "Remaining:", "Up next:")]),
    ("closing lists under a lead of what was done", "quiet", _closing,
     [(_led(t), False) for t in _DONE_LEADS]),
    ("…in other languages", "quiet", _closing, [(_led(t), False) for t in _DONE_LEADS_ABROAD]),
    ("the user's deferrals", "found", _deferred, [(t, True) for t in _DEFERRALS]),
    ("requests that defer nothing", "quiet", _deferred, [(t, False) for t in _NOT_DEFERRALS]),
    ("last words: it still fails", "found", _last_words, [(t, True) for t in _FAILING]),
    ("last words: thanks", "quiet", _last_words, [(t, False) for t in _THANKS]),
    ("a todo left in progress, the closing text on it", "right", _ticked, _TICKED),
    ("a question answered, an offer after it", "right", _answered,
     [(t, False) for t in _QUESTIONS]),
    ("a review given, an offer after it; work asked", "right", _told, _TOLD),
    ("work done, an offer to run more; or handed back", "right", _offered, _OFFERED),
    ("work asked, the reply changed nothing; or told", "right", _unchanged, _UNCHANGED),
    ("a list left open, items picked by number, done", "right", _numbered, _NUMBERED),
    ("the Goal: an opener naming no work, or work", "right", _opened, _OPENERS),
    ("the Goal: a command with no arguments, a pick", "right", _commanded,
     [(t, True) for t in _COMMANDS]),
    ("the Goal: Claude Code's recap, its lead", "right", _recapped, [(t, True) for t in _RECAPS]),
]  # fmt: skip


def run() -> list[dict[str, Any]]:
    """Each group's cases read by the sweep: how many it reads right, and which not."""
    from session_skill.transcripts.scan import analyze

    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "forms.jsonl"
        for name, _, build, cases in GROUPS:
            wrong: list[str] = []
            for text, listed in cases:
                write(path, build(text))
                facts = analyze(path)
                if build is _opened:
                    found = facts.goal != _WORK  # the first message named the session
                elif build is _recapped:
                    # the lead, without the client's note or the label, and not the next step
                    goal = facts.goal or ""
                    found = "jitter" in goal and "recaps in" not in goal and "Next" not in goal
                    found = found and not goal.lower().startswith(("goal", "overall goal"))
                elif build is _commanded:
                    # the work typed after it, and not the prompt's comment or the pick
                    goal = facts.goal or ""
                    found = goal.endswith(f"Then: {_WORK}") and "<!--" not in goal
                elif build is _tersely:
                    texts = [c.text for c in facts.candidates]
                    found = "pagination" in texts and "rate limits" in texts
                elif build is _loosely:
                    found = any("staging key" in c.text for c in facts.candidates)
                elif build is _numbered:
                    found = any(c.text.startswith("Validation") for c in facts.candidates)
                elif build is _ticked:
                    found = bool(facts.pending_tasks)
                elif build in (_answered, _told, _offered, _unchanged):
                    found = any(c.rule == "unfinished" for c in facts.candidates)
                elif build is _closing and listed:
                    # the sentence's own item, not only the request it closes — or the
                    # request shown with it, where the sentence says the work stopped
                    found = any(c.rule != "unfinished" or " — stopped: " in c.text
                                for c in facts.candidates)  # fmt: skip
                else:
                    found = bool(facts.candidates)
                if found != listed:
                    wrong.append(text)
            results.append({"group": name, "cases": len(cases), "wrong": wrong})
    return results


def report(results: list[dict[str, Any]]) -> list[str]:
    out = ["ordinary forms (bench/fidelity/forms.py: written here, not from the corpus)"]
    for r, (_, right, _, _) in zip(results, GROUPS, strict=True):
        n = r["cases"] - len(r["wrong"])
        out.append(f"  {r['group']:<48} {n}/{r['cases']} {right}")
        out += [f"    not: {' '.join(w.split())[:90]}" for w in r["wrong"]]
    return out
