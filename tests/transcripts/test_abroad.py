"""Sessions in other languages: work put off and a failure reported in the user's own words
(`transcripts.abroad`), read as the English rules read theirs."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_skill.transcripts.abroad import puts_off, still_fails
from tests.transcripts.test_scan import APP, DEFERRED, UNFINISHED, _edit, kinds, run, say, user


@pytest.mark.parametrize(
    ("said", "later"),
    [
        ("давай это на потом, сейчас важнее релиз", True),
        ("миграцию отложим до четверга", True),
        ("сначала поправь тесты, потом закоммить", False),  # "потом": then, not later
        ("国际化以后再做", True),
        ("暗黑模式后面再说吧", True),
        ("保留原来的配置文件", False),  # keep
        ("输错密码之后再输对就不行了", False),  # after …, then
        ("ログ出力は後回しにしましょう", True),
        ("ジャンプの後で着地アニメが出ない", False),  # after the jump
        ("lo de los reintentos lo dejamos para después", True),
        ("das Caching machen wir nächste Woche", True),
        ("o cache fica pra depois", True),
        ("pour le cache, on verra plus tard", True),
        ("캐시는 나중에 하자", True),
        ("la cache la rimandiamo", True),
        ("add the cache later", False),  # English: the English rules' to read
    ],
)
def test_work_put_off_in_another_language(said: str, later: bool) -> None:
    assert puts_off(said.lower()) is later


@pytest.mark.parametrize(
    ("said", "fails"),
    [
        ("всё ещё падает на том же месте", True),
        ("还是报错，一样的 NullPointerException", True),
        ("まだエラーが出ます", True),
        ("sigue fallando en CI", True),
        ("geht immer noch nicht", True),
        ("ainda dá erro no build", True),
        ("ça plante toujours au démarrage", True),
        ("여전히 같은 에러가 나요", True),
        ("теперь всё работает", False),
        ("好了，可以了", False),
    ],
)
def test_a_failure_reported_in_another_language(said: str, fails: bool) -> None:
    assert still_fails(said) is fails


def test_the_users_deferral_in_another_language_is_open(tmp_path: Path) -> None:
    records = [
        user("добавь ретраи в загрузчик и алерт в слак. алерт давай на потом"),
        *_edit("t1", "uploader.py"),
        say("Добавил ретраи с экспоненциальной задержкой в `uploader.py`, тесты проходят."),
    ]
    assert kinds(run(tmp_path, records)) == [(DEFERRED, "алерт давай на потом")]


def test_a_reply_putting_work_off_in_another_language_is_open(tmp_path: Path) -> None:
    closing = "登录的问题已经修好了，测试都通过了。国际化的部分以后再做，需要先确认文案。"
    records = [user("修一下登录页的 bug"), *_edit("t1", "login.ts"), say(closing)]
    assert kinds(run(tmp_path, records)) == [(DEFERRED, "国际化的部分以后再做，需要先确认文案。")]


def test_last_words_in_another_language_that_it_still_fails(tmp_path: Path) -> None:
    records = [
        user("поправь краш при повороте экрана"),
        *_edit("t1", "MainActivity.kt"),
        say("Исправил: `lateinit` теперь инициализируется в `onCreate`."),
        user("всё ещё падает при повороте"),
    ]
    facts = run(tmp_path, records)
    assert [c.type for c in facts.candidates] == [UNFINISHED]
    assert facts.unfinished is not None and facts.unfinished.why.startswith("it reported")
    assert APP  # (the project the edits are in)


# Typed without accents, as Portuguese, French and Polish often are: all ASCII, so the cheap
# test before each pattern (a letter of another script, or a word it needs) must let each
# through. (pattern, the function that reads it, examples)
_TYPED_PLAINLY = [
    ("LATER", "puts_off",
     ["o cache fica pra depois", "mais tarde eu vejo", "la semana que viene lo vemos",
      "por ahora no", "de momento no", "lo dejamos para el lunes", "erstmal nicht",
      "vorerst nicht", "das verschieben wir", "ein andermal", "on verra", "pas pour maintenant",
      "une autre fois", "dans une prochaine pr", "per ora no", "la prossima settimana",
      "rimandiamo", "daha sonra", "gelecek hafta", "na razie nie", "outro dia"]),
    ("HANDED", "hands_over",
     ["tienes que rotar la clave", "necesitas que lo revise alguien", "te toca el deploy",
      "das musst du selbst machen", "sollten Sie noch pruefen", "voce precisa rodar isso",
      "vc tem que aprovar", "tu dois relancer", "vous devez relancer",
      "il faut que tu relances", "devi flashare il firmware", "quando puoi, flasha",
      "ti serve il certificato", "musisz to wdrozyc"]),
    ("TAKES_ON", "takes_on",
     ["lo hago yo", "lo hare yo", "me encargo yo", "mache ich selbst", "teste ich selber",
      "rodo eu", "faco eu", "eu mesmo testo", "deixa comigo", "eu cuido disso",
      "je m'en charge", "je le lance moi-meme", "lo faccio io", "ci penso io",
      "me ne occupo io", "zrobie to sam", "sama zrobie", "zajme sie tym", "ben hallederim"]),
    ("LEFT_LEAD", "left_lead",
     ["proximos pasos", "siguientes pasos", "pendientes", "lo que falta", "quedan por hacer",
      "siguen fallando", "naechste schritte", "nachste schritte", "offene punkte", "noch offen",
      "verbleibend", "ausstehend", "noch zu tun", "schlagt noch fehl", "proximos passos",
      "pendentes", "pendencias", "o que falta", "ainda falhando", "a fazer",
      "prochaines etapes", "etapes suivantes", "reste a faire", "les 4 restants", "a faire",
      "en suspens", "toujours en echec", "prossimi passi", "da fare", "rimanenti",
      "in sospeso", "dalsze kroki", "nastepne kroki", "kolejne kroki", "do zrobienia",
      "pozostalo", "otwarte kwestie", "sonraki adimlar", "yapilacaklar"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("pattern", "reads", "said"),
    [(pattern, reads, said) for pattern, reads, examples in _TYPED_PLAINLY for said in examples],
)
def test_words_typed_without_accents_pass_the_cheap_test(
    pattern: str, reads: str, said: str
) -> None:
    from session_skill.transcripts import abroad

    low = said.lower()
    assert said.isascii() and getattr(abroad, pattern).search(low) is not None
    assert getattr(abroad, reads)(low)


@pytest.mark.parametrize(
    ("said", "handed"),
    [
        ("прогнать `terraform apply` нужно тебе, с прод-профилем", True),
        ("本番へのデプロイは `npm run deploy` をお願いします。", True),
        ("tienes que rotar la clave en la consola", True),
        ("den Key musst du in der Konsole rotieren", True),
        ("você precisa rodar a migração em produção", True),
        ("il faut que tu relances le déploiement", True),
        ("배포는 직접 해 주세요", True),
        ("quando puoi, flasha il firmware", True),
        ("直接ブラウザで確認はしていません", False),
        ("브라우저에서 직접 확인은 못 했습니다", False),  # "directly", of the assistant
        ("la función tiene que devolver un error", False),  # the code, not the user
    ],
)
def test_a_step_handed_to_the_user_in_another_language(said: str, handed: bool) -> None:
    from session_skill.transcripts.abroad import hands_over

    assert hands_over(said.lower()) is handed


def test_a_closing_reply_handing_a_step_over_in_another_language(tmp_path: Path) -> None:
    step = "Прогнать `terraform apply` нужно тебе, с прод-профилем."
    records = [
        user("добавь версионирование в бакет бэкапов"),
        *_edit("t1", "infra/s3.tf"),
        say(f"Включил версионирование в `infra/s3.tf`, `terraform validate` проходит. {step}"),
    ]
    assert kinds(run(tmp_path, records)) == [(DEFERRED, step)]


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        # a question before the reply's last sentence, in another script: put to the user
        ("念のため確認させてください：アダプタは 3.3V ですか？ 5V だと化けることがあります。",
         ["念のため確認させてください：アダプタは 3.3V ですか？"]),
        ("Включать ли lifecycle-правило для старых версий? Сейчас его нет.",
         ["Включать ли lifecycle-правило для старых версий?"]),
        # (in English, one that speaks to no one stays the text's own)
        ("The export took 3 s. The culprit? A missing index on `orders.created_at`.", []),
    ],
)  # fmt: skip
def test_a_question_mid_reply_in_another_script_is_put_to_the_user(
    text: str, asked: list[str]
) -> None:
    from session_skill.transcripts.asks import asks

    assert [a.text for a in asks(text)] == asked


@pytest.mark.parametrize(
    ("said", "takes"),
    [
        ("фронт я сам поправлю", True),
        ("миграцию запущу сам вечером", True),
        ("部署我自己来", True),
        ("デプロイは自分でやります", True),
        ("ok, el apply lo hago yo ahora", True),
        ("del deploy me encargo yo", True),
        ("den Merge mache ich selbst", True),
        ("a migração eu mesmo rodo", True),
        ("je m'en occupe demain", True),
        ("배포는 제가 할게요", True),
        ("il rilascio lo faccio io", True),
        ("wdrożenie zrobię sam", True),
        ("сам файл не трогай", False),  # "сам": the file itself
        ("我明天上机器试试", False),  # a time, not "myself"
        ("hazlo tú, por favor", False),  # asks the assistant
        ("I'll deploy it myself", False),  # English: `_OWN_STEP`'s
    ],
)
def test_a_step_the_user_takes_on_in_another_language(said: str, takes: bool) -> None:
    from session_skill.transcripts.abroad import takes_on

    assert takes_on(said.lower()) is takes


def test_last_words_taking_a_step_on_leave_no_request_open(tmp_path: Path) -> None:
    records = [
        user("saca la key de la service account del repo y pasa el workflow a OIDC"),
        *_edit("t1", ".github/workflows/deploy.yml"),
        say("Listo: la key ya no está en el repo y el workflow usa OIDC con el pool nuevo."),
        user("ok, el apply lo hago yo ahora"),
    ]
    assert kinds(run(tmp_path, records)) == []


@pytest.mark.parametrize(
    "said",
    ["ок, на сегодня всё", "好的，先这样吧", "了解、今日はここまでで", "por ahora es suficiente",
     "gut, das reicht erstmal", "por hoje é só", "c'est tout pour aujourd'hui",
     "오늘은 여기까지", "per oggi basta", "na dziś wystarczy"],
)  # fmt: skip
def test_last_words_stopping_for_now_in_another_language_ask_nothing(
    tmp_path: Path, said: str
) -> None:
    records = [
        user("поправь краш при повороте экрана"),
        *_edit("t1", "MainActivity.kt"),
        say("Исправил: `lateinit` теперь инициализируется в `onCreate`."),
        user(said),
    ]
    assert kinds(run(tmp_path, records)) == []


@pytest.mark.parametrize(
    ("said", "left"),
    [
        ("Следующие шаги", True),
        ("Дальше", True),
        ("下一步", True),
        ("残タスク", True),
        ("Próximos pasos", True),
        ("Noch offen", True),
        ("Prochaines étapes", True),
        ("On passe de 47 à 4 échecs. Les 4 restants", True),
        ("남은 작업", True),
        ("Dalsze kroki", True),
        ("proximos passos", True),  # typed without accents
        ("Итог", False),
        ("概要", False),
        ("Zusammenfassung", False),
        ("Next steps", False),  # English: the English rules' to read
        ("Pendiente de revisar la migración con el equipo de datos esta semana", False),
    ],
)
def test_a_lead_over_what_is_left_in_another_language(said: str, left: bool) -> None:
    from session_skill.transcripts.abroad import left_lead

    assert left_lead(said) is left


@pytest.mark.parametrize(
    "lead", ["**Дальше**", "**次のステップ**", "下一步：", "Próximos pasos:", "### Noch offen"]
)
def test_a_closing_list_under_what_is_left_in_another_language(lead: str) -> None:
    from session_skill.transcripts.ending import open_lists

    items = "- прогнать `terraform apply` в проде\n- проверить KMS\n"
    text = f"Готово, тесты проходят.\n\n{lead}\n{items}"
    found = [item for item, _ in open_lists(text, ended=True)]
    assert found == ["прогнать terraform apply в проде", "проверить KMS"]
    # Earlier in a session, the reply to it answers such a list (as "Next steps:" in English)
    assert open_lists(text) == []


def test_a_bold_line_alone_in_english_leads_nothing_new() -> None:
    from session_skill.transcripts.ending import open_lists

    text = "Fixed the crash.\n\n**Notes**\n- the retry count is 3\n- logs go to stderr\n"
    assert open_lists(text, ended=True) == []


def test_a_session_ending_on_a_list_of_what_is_left_in_another_language(tmp_path: Path) -> None:
    closing = (
        "**Итог**\n- Добавил бакет `backups` с версионированием.\n\n"
        "**Дальше**\n- Прогнать `terraform apply` для prod.\n- Проверить политику ключа KMS."
    )
    records = [user("добавь бакет для бэкапов"), *_edit("t1", "infra/s3.tf"), say(closing)]
    assert kinds(run(tmp_path, records)) == [
        (DEFERRED, "Прогнать terraform apply для prod."),
        (DEFERRED, "Проверить политику ключа KMS."),
    ]


@pytest.mark.parametrize(
    ("said", "stops"),
    [("das wars für heute", True), ("gut, das war's", True), ("na dziś wystarczy", True),
     ("war's", False),  # English: "the trade war's …"
     ("por favor", False), ("per ora", False)],
)  # fmt: skip
def test_what_stops_for_now_in_another_language(said: str, stops: bool) -> None:
    import re

    from session_skill.transcripts.abroad import DONE_FOR_NOW

    assert (re.search(rf"(?:{DONE_FOR_NOW})\W*$", said) is not None) is stops
