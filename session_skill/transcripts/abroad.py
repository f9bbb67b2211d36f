"""What the rules read in English, said in the other languages people most write to these
tools in: Russian, Chinese, Japanese, Spanish, German, Portuguese, French, Korean, Italian,
Polish, Turkish. The English rules are many and fine-grained; these are few and plain — a
word that puts work off, a report that it still fails — searched in the lowered text of a
message (a Latin-script language is often typed without accents: "o cache fica pra
depois").

The thanks that end a session are `prose.THANKS_ABROAD`'s."""

from __future__ import annotations

import re

from session_skill.transcripts.lazyre import Lazy, alternation

# Work put off: "потом", "后面再说", "後回し", "dejémoslo para después", "nächste Woche",
# "fica pra depois", "on verra plus tard", "나중에", "rimandiamo", "na razie nie" — not
# "потом" alone ("сначала X, потом Y": then), "保留" alone (Chinese: keep), "之后再"
# ("after …, then"), "…の後で" ("after the …").
LATER = Lazy(
    r"""на\s+потом|давай\s+потом|потом\s+(?:сделаем|посмотрим|доделаем|разбер[её]мся|займ[её]мся
        |добавим|поправим)|позже|позднее|на\s+следующей\s+неделе|в\s+следующий\s+раз|в\s+другой\s+раз
      |отлож(?:им|ить|ил|у)|пока\s+не\s+(?:будем|трогаем|делаем|надо|нужно)|не\s+сейчас
      |以后再|后面再|回头再|下次再|改天|下周|下个?版本|先不(?:做|管|弄|改|动)|暂时不|稍后再|晚点再
      |(?<!の)後で|あとで|後ほど|後回し|来週|また今度|次回|保留(?:に|で|し)|別の?\s?pr
      |para\s+(?:después|luego|más\s+adelante)|más\s+(?:tarde|adelante)|la\s+(?:próxima\s+semana
        |semana\s+que\s+viene)|por\s+ahora\s+no|de\s+momento\s+no|dej(?:émoslo|amos|alo)\s+(?:para|pendiente)
        |otro\s+día
      |später|nächste\s+woche|nächsten\s+sprint|erstmal\s+nicht|vorerst\s+nicht|verschieben|ein\s+andermal
        |zurückstellen
      |(?:pra|para)\s+depois|depois\s+(?:a\s+gente|vemos|eu\s+vejo|fazemos)|mais\s+tarde|semana\s+que\s+vem
        |próxima\s+semana|por\s+enquanto\s+não|outro\s+dia
      |plus\s+tard|la\s+semaine\s+prochaine|on\s+verra|pas\s+pour\s+(?:l'instant|maintenant)|une\s+autre\s+fois
        |(?:dans|pour)\s+une\s+(?:prochaine|autre)\s+pr|remettre\s+à\s+plus
      |나중에|다음에|다음\s*주|보류|미루
      |più\s+tardi|la\s+prossima\s+settimana|per\s+ora\s+no|rimandiamo|rimandare
      |później|w\s+przyszłym\s+tygodniu|na\s+razie\s+nie|odłóżmy
      |daha\s+sonra|gelecek\s+hafta|şimdilik\s+(?:değil|gerek\s+yok)""",
    re.VERBOSE,
)

# The user's words that it still fails: "всё ещё падает", "还是报错", "まだエラーが出る",
# "sigue fallando", "geht immer noch nicht", "ainda dá erro", "ça plante toujours", "여전히".
STILL_FAILS = Lazy(
    r"""(?:всё|все)\s+(?:ещё|еще)\s+(?:падает|не\s+работает|ошибка|валится|крашится|висит)
      |(?:опять|снова)\s+(?:падает|ошибка|не\s+работает)|по-прежнему\s+(?:падает|не\s+работает)
      |还是(?:报错|不行|失败|崩|挂|有问题|一样)|仍然(?:报错|失败|不行)|依然(?:报错|失败|不行)
      |まだ(?:落ち|エラー|動かない|失敗|直って(?:い)?ない|同じ)|相変わらず
      |sigue\s+(?:fallando|sin\s+funcionar|dando\s+(?:error|el\s+mismo))|todavía\s+(?:falla|no\s+funciona)
      |(?:immer|noch\s+immer)\s+noch\s+(?:nicht|der\s+gleiche|derselbe|kaputt|fehler)
        |geht\s+(?:immer\s+noch|noch\s+immer)\s+nicht|(?:schlägt|stürzt)\s+immer\s+noch
      |ainda\s+(?:dá\s+(?:erro|o\s+mesmo)|não\s+funciona|falha|quebra)|continua\s+(?:dando\s+erro|falhando
        |quebrando)
      |toujours\s+(?:pas|la\s+même\s+erreur|en\s+erreur|cassé)|(?:plante|échoue|crashe)\s+toujours
      |여전히|아직도\s*(?:안|에러|오류|실패)
      |ancora\s+(?:non\s+funziona|errore|lo\s+stesso)|nadal\s+(?:nie\s+działa|błąd|to\s+samo)
      |hala\s+(?:çalışmıyor|hata)""",
    re.VERBOSE,
)


# What every branch of LATER holds: a word all-ASCII text can match it with, or a letter of
# another script (`_maybe`) — the cheap test first, for the English messages that are most
# of what is read (their "—" and "’" are no letters).
_ASCII_HINTS = (
    "tard", "verra", "pas pour", "fois", "prochaine", "autre pr", "per ora", "rimand",
    "settimana", "depois", "semana", "outro d", "luego", "ahora no", "momento no", "dej",
    "erstmal", "vorerst", "verschieb", "andermal", "sonra", "hafta", "na razie",
)  # fmt: skip
_MAYBE_LATER = Lazy(alternation(_ASCII_HINTS))


# A step the closing reply hands the user: "нужно тебе", "需要你", "をお願いします",
# "tienes que", "musst du", "você precisa", "tu dois", "해 주세요", "quando puoi".
HANDED = Lazy(
    r"""(?:тебе|вам)\s+(?:нужно|надо|придётся|придется|стоит)|(?:нужно|надо|придётся|придется)\s+(?:тебе|вам)
      |你(?:需要|得|要)(?:手动|自己)|需要你|麻烦你|请(?:你|您)?(?:手动|自己)
      |をお願いします|お願いできますか|ご確認ください|手動で
      |(?:tienes|tendrás|tendras|necesitas|deberías|deberias|debes)\s+que\s|te\s+toca
      |(?:musst|solltest|müsstest)\s+du\b|(?:müssen|sollten)\s+sie\b
      |(?:você|voce|vc)\s+(?:precisa|vai\s+precisar|tem\s+que|deve)\b
      |\b(?:tu\s+dois|vous\s+devez|tu\s+devras|vous\s+devrez)\b|il\s+faut\s+que\s+(?:tu|vous)\b
        |à\s+(?:toi|vous)\s+de\b
      |해\s*주세요|하셔야|수동으로
      |\b(?:devi|dovrai|dovete)\s|quando\s+puoi|ti\s+serve
      |\b(?:musisz|będziesz\s+musiał)\b""",
    re.VERBOSE,
)
_HANDED_HINTS = (
    "tienes", "tendras", "necesitas", "deberias", "debes", "te toca", "musst du",
    "solltest du", "sollten sie", "voce ", "vc ", "tu d", "vous d", "il faut", " toi de",
    " vous de", "devi ", "dovrai", "dovete", "quando puoi", "ti serve", "musisz",
)  # fmt: skip
_MAYBE_HANDED = Lazy(alternation(_HANDED_HINTS))
# A letter of a script other than Latin and Greek: Cyrillic, kana, CJK, Hangul.
_KANA_CJK = "\u3040-\u30ff\u3400-\u9fff"
_FAR_SCRIPTS = f"\u0400-\u04ff{_KANA_CJK}\uac00-\ud7af"
# …of Chinese or Japanese, which put no spaces between words.
CJK = Lazy(f"[{_KANA_CJK}]")
FAR_SCRIPT = Lazy(f"[{_FAR_SCRIPTS}]")
# …or of another script at all: accented Latin and Greek too.
_OTHER_SCRIPT = Lazy(f"[\u00c0-\u024f\u0370-\u03ff{_FAR_SCRIPTS}]")


def _maybe(low: str, hints: Lazy) -> bool:
    """Could a pattern of this module match `low`: a letter of another script, or one of
    the pattern's `hints`? (Two plain searches: half the cost of one that does both.)"""
    if not low.isascii() and _OTHER_SCRIPT.search(low) is not None:
        return True
    return hints.search(low) is not None


def hands_over(low: str) -> bool:
    """Do these lowered words hand the user a step, in another language?"""
    return _maybe(low, _MAYBE_HANDED) and HANDED.search(low) is not None


def puts_off(low: str) -> bool:
    """Do these lowered words put work off, in another language?"""
    return _maybe(low, _MAYBE_LATER) and LATER.search(low) is not None


def still_fails(text: str) -> bool:
    """Do these words report that something still fails, in another language?"""
    return STILL_FAILS.search(text.lower()) is not None
