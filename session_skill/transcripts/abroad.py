"""What the rules read in English, said in the other languages people most write to these
tools in: Russian, Chinese, Japanese, Spanish, German, Portuguese, French, Korean, Italian,
Polish, Turkish. The English rules are many and fine-grained; these are few and plain — a
word that puts work off, a report that it still fails, a step handed to the user or taken on
by them, "that's enough for now" — searched in the lowered text of a
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


# The user's last words that stop for now and ask nothing more, as "that's enough for now"
# and "that's all for today" do: "на сегодня всё", "先这样吧", "今日はここまで", "por ahora
# es suficiente", "das reicht erstmal", "por hoje é só", "c'est tout pour aujourd'hui",
# "오늘은 여기까지", "per oggi basta", "na razie wystarczy". (Read as thanks are:
# `prose.THANKS`.)
DONE_FOR_NOW = (
    r"(?:на\s+сегодня|пока|на\s+этом)\s+(?:всё|все|хватит|достаточно)|этого\s+(?:пока\s+)?достаточно"
    r"|先这样吧?|今天(?:就)?(?:到这|先到这)(?:里|儿)?|就这样吧|暂时(?:就)?(?:够了|这样)|先到这(?:里|儿)"
    r"|(?:今日は|一旦|とりあえず)(?:これで|ここまで)(?:で|です|にします|にしましょう)?|これで十分"
    r"|por\s+(?:ahora|hoy)\s+(?:es|está)\s+(?:bien|suficiente)|suficiente\s+por\s+(?:ahora|hoy)"
    r"|por\s+hoy\s+es\s+todo|eso\s+es\s+todo(?:\s+por\s+(?:ahora|hoy))?"
    r"|das\s+reicht\s+(?:erstmal|erst\s+mal|für\s+heute|fürs\s+erste)|fürs\s+erste\s+reicht(?:'s|s)?"
    r"|das\s+war'?s(?:\s+für\s+heute)?|für\s+heute\s+reicht(?:'s|s|\s+es)?"
    r"|por\s+(?:enquanto|hoje)\s+é\s+(?:isso|só)|é\s+isso\s+por\s+(?:hoje|enquanto|agora)"
    r"|por\s+hoje\s+chega"
    r"|c'est\s+tout\s+pour\s+(?:aujourd'hui|l'instant|le\s+moment)"
    r"|ça\s+(?:suffit|ira)\s+pour\s+(?:l'instant|aujourd'hui|le\s+moment)"
    r"|오늘은\s*여기까지|일단\s*(?:여기까지|이\s*정도면)|이\s*정도면\s*(?:충분|됐)"
    r"|per\s+(?:ora|oggi)\s+(?:basta|è\s+tutto)|è\s+tutto\s+per\s+(?:oggi|ora)"
    r"|na\s+(?:razie|dziś|dzisiaj)\s+(?:wystarczy|to\s+wszystko|tyle)"
    r"|to\s+wszystko\s+na\s+(?:dziś|dzisiaj|razie)"
    r"|(?:şimdilik|bugünlük)\s+bu\s+kadar"
)

# A step the user takes on themselves, as "I'll do the apply myself" and "I'll ping Dana"
# are: "сделаю сам", "我自己来", "自分でやります", "lo hago yo", "mache ich selbst", "faço
# eu", "je m'en occupe", "제가 할게요", "lo faccio io", "zrobię to sam". Not the time a step
# is put off to ("我明天试试", "I'll try it tomorrow"): that is `LATER`'s, where it is one.
TAKES_ON = Lazy(
    r"""(?:^|[\s,.;:!(])(?:
        (?:я\s+)?сам[а]?\s+(?:сделаю|запущу|проверю|задеплою|выкачу|смержу|поправлю|посмотрю
          |спрошу|напишу|накачу|применю|удалю|займусь|разберусь)
      | (?:сделаю|запущу|проверю|задеплою|выкачу|смержу|поправлю|применю|накачу|удалю)
          \s+(?:это\s+|его\s+|её\s+|ее\s+|их\s+)?сам[а]?\b
      | беру\s+на\s+себя
      | (?:lo|la|los|las)\s+(?:hago|har[ée]|aplico|corro|lanzo|subo|reviso|pruebo|borro|mergeo)
          \s+yo\b
      | (?:yo\s+)?me\s+encargo(?:\s+yo)?\b | de\s+eso\s+me\s+encargo
      | (?:mach|mache|übernehme|erledige|teste|deploye|merge|prüfe)\s+ich\s+(?:selbst|selber)\b
      | übernehme\s+ich\b | (?:ich\s+)?kümmere\s+mich\s+(?:selbst\s+)?(?:drum|darum)
      | (?:fa[çc]o|rodo|aplico|subo|testo)\s+eu\b
        | eu\s+mesm[oa]\s+(?:fa[çc]o|rodo|aplico|subo|testo)
        | deixa\s+comigo | eu\s+cuido\s+disso
      | je\s+m'en\s+(?:occupe|charge) | je\s+(?:le|la|les)\s+(?:fais|lance|applique|teste|déploie
          |merge)\s+moi(?:-|\s)m[êe]me
      | (?:lo|la|li|le)\s+(?:faccio|lancio|applico|testo)\s+io\b | ci\s+penso\s+io
        | me\s+ne\s+occupo\s+io
      | zrobi[ęe]\s+(?:to\s+)?sam[a]?\b | sam[a]?\s+(?:to\s+)?zrobi[ęe] | zajm[ęe]\s+si[ęe]\s+tym
      | ben\s+(?:yaparım|hallederim)
      )
      | 我自己(?:来|弄|做|跑|改|试|搞|处理|部署|提交|去)
      | 自分で(?:やります|やる|します|対応します|確認します|デプロイします|適用します)
        | こちらで(?:やります|対応します) | 私が(?:やります|対応します)
      | 제가\s*(?:할게요|하겠습니다|직접)
        | 직접\s*(?:할게요|하겠습니다|돌릴게요|배포할게요|적용할게요)""",
    re.VERBOSE,
)
_TAKES_ON_HINTS = (
    "o yo", "e yo", "encargo", "ich selb", "o eu", "eu mesm", "comigo", "eu cuido", "je m'en",
    "moi-m", "moi m", "o io", "penso io", "zrobie", "sama", "sam ", "zajme", "ben yap",
    "ben hall",
)  # fmt: skip
_MAYBE_TAKES_ON = Lazy(alternation(_TAKES_ON_HINTS))


def takes_on(low: str) -> bool:
    """Do these lowered words take a step on the user themselves, in another language?"""
    return _maybe(low, _MAYBE_TAKES_ON) and TAKES_ON.search(low) is not None


# A lead-in or heading over a list of what is left, as "Next steps", "Remaining", "Still
# open", "TODO", "Still failing" are: "Следующие шаги", "Осталось", "下一步", "待办",
# "次のステップ", "残タスク", "Próximos pasos", "Pendiente", "Nächste Schritte", "Noch
# offen", "Próximos passos", "Prochaines étapes", "Reste à faire", "다음 단계", "남은 작업",
# "Prossimi passi", "Dalsze kroki", "Do zrobienia". The lead's words alone, a few of them.
LEFT_LEAD = Lazy(
    r"""^(?:[\w\s]{0,20}?\s)?(?:
        (?:следующие|дальнейшие)\s+шаги|дальше|что\s+осталось|осталось|оставшиеся|не\s+сделано
          |ещё\s+не\s+сделано|открытые\s+вопросы|(?:всё\s+)?ещё\s+падает|нужно\s+(?:ещё\s+)?сделать
      | 下一步|后续(?:步骤|工作|事项)?|待办(?:事项)?|待处理|剩余(?:工作|问题)?|未完成|遗留(?:问题)?
          |仍然失败|还没(?:做|完成)
      | 次のステップ|次にやること|残り(?:の作業|のタスク)?|残タスク|残作業|未対応|未完了
          |今後の(?:対応|課題|作業)|要対応|まだ失敗
      | (?:pr[óo]ximos|siguientes)\s+pasos|pendientes?|lo\s+que\s+falta|falta|quedan?\s+por\s+hacer
          |por\s+hacer|sigue(?:n)?\s+fallando
      | n(?:ä|ae|a)chste\s+schritte|offene\s+punkte|noch\s+offen|verbleibend|ausstehend
          |noch\s+zu\s+tun
          |schl(?:ä|ae|a)gt\s+(?:noch|weiterhin)\s+fehl
      | pr[óo]ximos\s+passos|pendente(?:s)?|pend[êe]ncias|o\s+que\s+falta|ainda\s+falhando|a\s+fazer
      | prochaines\s+[ée]tapes|[ée]tapes\s+suivantes|reste\s+[àa]\s+faire|restants?|[àa]\s+faire
          |en\s+suspens|toujours\s+en\s+[ée]chec
      | 다음\s*단계|남은\s*(?:작업|일|것)|미완료|할\s*일|후속\s*작업|여전히\s*실패
      | prossimi\s+passi|da\s+fare|rimanenti|in\s+sospeso
      | (?:dalsze|nast[ęe]pne|kolejne)\s+kroki|do\s+zrobienia|pozosta[łl]o
          |otwarte\s+(?:kwestie|sprawy)
      | sonraki\s+ad[ıi]mlar|yap[ıi]lacaklar
    )[\s\w()]{0,24}$""",
    re.VERBOSE,
)

# (All-ASCII leads, typed without accents: the cheap test first, as `_MAYBE_LATER`.)
_LEFT_LEAD_HINTS = (
    "pasos", "pendiente", "falta", "por hacer", "fallando", "schritte", "offen", "verbleib",
    "ausstehend", "zu tun", "passos", "pendente", "a fazer", "etapes", "restant", "a faire",
    "en suspens", "passi", "da fare", "rimanenti", "sospeso", "kroki", "do zrobienia",
    "pozostalo", "otwarte", "yapilacak", "sonraki", "pendencias", "falhando", "echec",
    "noch fehl", "weiterhin fehl",
)  # fmt: skip
_MAYBE_LEFT_LEAD = Lazy(alternation(_LEFT_LEAD_HINTS))


def left_lead(said: str) -> bool:
    """Is `said` (a lead-in's or heading's words, its markup and colon cut) one over what is
    left, in another language?"""
    low = said.rsplit(". ", 1)[-1].lower()  # "On passe de 47 à 4 échecs. Les 4 restants"
    return (
        len(low.split()) <= 6 and _maybe(low, _MAYBE_LEFT_LEAD) and LEFT_LEAD.match(low) is not None
    )
