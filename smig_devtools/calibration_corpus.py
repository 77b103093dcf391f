"""Provides the held-out texts smig's tokenizer calibration is fitted and judged on, beside the real fixtures.

The real sessions in ../shared/fixtures are English prose, code and tool output; what users paste
into agents is wider: Chinese, Japanese and Korean, and number-heavy text (tables, logs, metrics,
hex dumps). Those are the texts whose token counts differ most between tokenizers, so this module
writes messages of each kind, deterministically from a seed: CJK sentences written for this purpose
about everyday programming work, mixed with identifiers and numbers as real messages are; numbers
in the shapes tools print them; code in Python, TypeScript, Rust, Go and SQL; English prose. `messages(seed, count)`
returns them in sessions of `SESSION_MESSAGES`, each session a random mix, so fitting on one half
and judging on the other half is a real hold-out.
"""

from __future__ import annotations

import random
from collections.abc import Callable

SESSION_MESSAGES = 12
"""Messages per generated session (the size the issue's random sessions had)."""

CHINESE = [
    "我把解析器重写了一遍，现在空输入不会再崩溃了。",
    "这个函数在处理大文件的时候内存占用太高，需要改成流式读取。",
    "请帮我看一下为什么单元测试在持续集成上偶尔会失败。",
    "数据库迁移脚本已经写好了，但是还没有在测试环境里跑过。",
    "我们需要在配置文件里加一个选项，让用户可以关闭自动更新。",
    "日志里出现了大量的超时错误，可能是连接池的大小设置得太小。",
    "这段代码的可读性不太好，变量名应该改得更清楚一些。",
    "上线之前一定要先备份生产环境的数据，以免出现意外。",
    "前端页面在手机上显示不正常，按钮被挤到了屏幕外面。",
    "接口返回的时间格式不统一，有的是时间戳，有的是字符串。",
    "我已经把依赖升级到最新版本，编译时出现了几个新的警告。",
    "缓存失效的逻辑有问题，用户修改资料后页面还是显示旧的内容。",
    "请把这个模块拆成两个文件，一个负责读取，一个负责写入。",
    "性能测试的结果显示，新版本的响应时间比旧版本快了将近一倍。",
    "如果网络断开，客户端应该自动重试三次，然后给出明确的提示。",
    "这个问题只在 Windows 上出现，Linux 和 macOS 上都是正常的。",
    "代码审查的时候发现有一处没有检查返回值，可能会导致空指针。",
    "我们的文档已经过时了，很多命令的参数都和现在的版本不一样。",
    "用户反馈搜索结果里有重复的条目，需要在合并之前先去重。",
    "请确认一下权限设置，普通用户不应该能够删除别人的文件。",
    "把日志级别调成调试模式以后，问题就很容易复现了。",
    "这次重构没有改变任何对外的接口，所以不需要通知其他团队。",
    "定时任务每天凌晨两点运行一次，负责清理过期的临时文件。",
    "我在本地跑了一遍完整的测试，所有用例都通过了。",
]

JAPANESE = [
    "パーサーを書き直したので、空の入力でもクラッシュしなくなりました。",
    "この関数は大きなファイルを扱うとメモリを使いすぎるので、ストリーム処理に変えたいです。",
    "CI でテストがときどき失敗する原因を調べてもらえますか。",
    "データベースのマイグレーションはまだステージング環境で試していません。",
    "設定ファイルに自動更新を無効にするオプションを追加しましょう。",
    "ログにタイムアウトのエラーが大量に出ています。接続プールが小さすぎるのかもしれません。",
    "変数名をもう少し分かりやすくすれば、このコードはずっと読みやすくなります。",
    "本番環境にデプロイする前に、必ずデータのバックアップを取ってください。",
    "スマートフォンで表示するとボタンが画面の外にはみ出してしまいます。",
    "API が返す日付の形式がばらばらで、タイムスタンプと文字列が混在しています。",
    "依存関係を最新版に上げたら、ビルド時に新しい警告がいくつか出ました。",
    "キャッシュの無効化に問題があり、プロフィールを変更しても古い内容が表示されます。",
    "このモジュールを読み込み用と書き込み用の二つのファイルに分けてください。",
    "性能テストでは、新しいバージョンの応答時間が以前のほぼ半分になりました。",
    "ネットワークが切れたら、クライアントは三回まで自動で再試行するべきです。",
    "この問題は Windows でだけ発生し、Linux と macOS では正常に動きます。",
    "レビューで戻り値を確認していない箇所が見つかりました。",
    "ドキュメントが古くなっていて、多くのコマンドの引数が現在と違います。",
    "検索結果に重複が含まれているので、マージの前に取り除く必要があります。",
    "一般ユーザーが他人のファイルを削除できないように、権限を確認してください。",
]

KOREAN = [
    "파서를 다시 작성해서 이제 빈 입력에도 프로그램이 멈추지 않습니다.",
    "이 함수는 큰 파일을 처리할 때 메모리를 너무 많이 써서 스트리밍 방식으로 바꿔야 합니다.",
    "CI에서 테스트가 가끔 실패하는 이유를 확인해 주시겠어요?",
    "데이터베이스 마이그레이션 스크립트는 아직 스테이징 환경에서 실행해 보지 않았습니다.",
    "설정 파일에 자동 업데이트를 끌 수 있는 옵션을 추가합시다.",
    "로그에 시간 초과 오류가 많이 나오는데, 연결 풀 크기가 너무 작은 것 같습니다.",
    "변수 이름을 조금 더 명확하게 바꾸면 코드가 훨씬 읽기 쉬워집니다.",
    "운영 환경에 배포하기 전에 반드시 데이터를 백업해 주세요.",
    "휴대폰에서 보면 버튼이 화면 밖으로 밀려나 있습니다.",
    "API가 돌려주는 날짜 형식이 제각각이라 타임스탬프와 문자열이 섞여 있습니다.",
    "의존성을 최신 버전으로 올렸더니 빌드할 때 새로운 경고가 몇 개 나왔습니다.",
    "캐시 무효화 로직에 문제가 있어서 프로필을 바꿔도 예전 내용이 보입니다.",
    "이 모듈을 읽기용과 쓰기용 두 파일로 나눠 주세요.",
    "성능 테스트 결과 새 버전의 응답 시간이 이전보다 거의 두 배 빨라졌습니다.",
    "네트워크가 끊기면 클라이언트가 세 번까지 자동으로 다시 시도해야 합니다.",
    "이 문제는 Windows에서만 생기고 Linux와 macOS에서는 정상입니다.",
    "코드 리뷰에서 반환값을 확인하지 않는 부분을 발견했습니다.",
    "문서가 오래되어서 많은 명령의 인자가 지금 버전과 다릅니다.",
    "검색 결과에 중복 항목이 있어서 합치기 전에 먼저 제거해야 합니다.",
    "일반 사용자가 다른 사람의 파일을 지울 수 없도록 권한을 확인해 주세요.",
]

PROSE = [
    "The parser no longer crashes on empty input; I added a guard before the first read.",
    "Memory use climbs steadily while the importer walks a large archive, so it should stream instead.",
    "Could you look at why the integration tests fail now and then on CI but never locally?",
    "The migration script is written, but nobody has run it against the staging database yet.",
    "Let's add a setting that turns automatic updates off for people on metered connections.",
    "Most of the timeouts in the log come from the payment service, which suggests the pool is too small.",
    "Renaming a handful of variables would make this function much easier to follow.",
    "Before we deploy, take a backup of production and check that it actually restores.",
    "On narrow screens the submit button is pushed off the edge, so the form cannot be sent.",
    "Dates come back from the API in two shapes, sometimes epoch seconds and sometimes ISO strings.",
    "After upgrading the dependencies the build prints a few new deprecation warnings.",
    "The cache is not invalidated when a profile changes, so the page keeps showing the old name.",
    "Please split this module in two: one part reads the files, the other writes them.",
    "In the load test the new release answered in roughly half the time the old one needed.",
    "When the network drops, the client should retry three times and then say clearly what failed.",
    "It only happens on Windows; Linux and macOS behave as expected.",
    "Review turned up a call whose return value is never checked, which can end in a null dereference.",
    "The documentation is out of date, and many of the flags it describes have been renamed.",
    "Search results contain duplicates, so we need to remove them before merging the lists.",
    "Check the permissions: an ordinary user must not be able to delete other people's files.",
]

IDENTIFIERS = ["parse_config", "UserRepository", "retry_count", "max_pool_size", "fetchProfile", "cache_ttl"]

CODE = [
    'def parse_config(path: str) -> dict[str, object]:\n    with open(path, encoding="utf-8") as handle:\n'
    '        data = tomllib.loads(handle.read())\n    if "server" not in data:\n'
    '        raise ValueError(f"{path}: missing [server]")\n    return data\n',
    "export async function fetchProfile(id: string): Promise<Profile> {\n  const res = await fetch(`/api/users/${id}`);\n"
    "  if (!res.ok) throw new Error(`HTTP ${res.status}`);\n  return (await res.json()) as Profile;\n}\n",
    "fn retry<T, E>(mut op: impl FnMut() -> Result<T, E>, times: usize) -> Result<T, E> {\n"
    "    let mut last = op();\n    for _ in 1..times {\n        if last.is_ok() { break; }\n        last = op();\n    }\n"
    "    last\n}\n",
    "func (r *UserRepository) Delete(ctx context.Context, id int64) error {\n"
    '\t_, err := r.db.ExecContext(ctx, "DELETE FROM users WHERE id = $1", id)\n'
    '\tif err != nil {\n\t\treturn fmt.Errorf("delete user %d: %w", id, err)\n\t}\n\treturn nil\n}\n',
    "class LRUCache:\n    def __init__(self, size: int) -> None:\n        self.size = size\n"
    "        self.items: OrderedDict[str, bytes] = OrderedDict()\n\n    def get(self, key: str) -> bytes | None:\n"
    "        if key in self.items:\n            self.items.move_to_end(key)\n        return self.items.get(key)\n",
    "SELECT u.id, u.email, count(o.id) AS orders\nFROM users u LEFT JOIN orders o ON o.user_id = u.id\n"
    "WHERE u.created_at >= now() - interval '30 days'\nGROUP BY u.id, u.email\nORDER BY orders DESC\nLIMIT 50;\n",
]


def _numbers(rng: random.Random) -> str:
    """Text as tools print numbers: a CSV table, timed log lines, metrics, a hex dump, versions, a sequence."""
    shape = rng.randrange(6)
    if shape == 0:
        rows = ["id,timestamp,latency_ms,bytes,status"]
        rows += [
            f"{rng.randrange(10**5, 10**6)},{1_790_000_000 + rng.randrange(10**6)},{rng.uniform(0.5, 900):.2f},"
            f"{rng.randrange(10**7)},{rng.choice((200, 200, 200, 404, 500))}"
            for _ in range(rng.randrange(8, 40))
        ]
        return "\n".join(rows)
    if shape == 1:
        return "\n".join(
            f"2026-11-{rng.randrange(1, 29):02d}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:"
            f"{rng.randrange(60):02d}.{rng.randrange(1000):03d}Z worker-{rng.randrange(16)} "
            f"processed {rng.randrange(10**4)} items in {rng.uniform(0.01, 30):.3f}s (queue {rng.randrange(500)})"
            for _ in range(rng.randrange(6, 30))
        )
    if shape == 2:
        return "\n".join(
            f'{name}{{pod="api-{rng.randrange(100)}"}} {rng.uniform(0, 10**6):.4f} {1_790_000_000_000 + rng.randrange(10**9)}'
            for name in rng.choices(("http_requests_total", "process_cpu_seconds", "heap_bytes", "gc_pause_ms"), k=20)
        )
    if shape == 3:
        return "\n".join(
            f"{offset:08x}  " + " ".join(f"{rng.randrange(256):02x}" for _ in range(16))
            for offset in range(0, 16 * rng.randrange(6, 24), 16)
        )
    if shape == 4:
        return "\n".join(
            f"{name} {rng.randrange(10)}.{rng.randrange(40)}.{rng.randrange(30)} -> "
            f"{rng.randrange(10)}.{rng.randrange(40)}.{rng.randrange(30)} ({rng.randrange(10**3)} kB)"
            for name in rng.sample(
                ["numpy", "requests", "pydantic", "rich", "textual", "httpx", "zstandard", "tiktoken"], 6
            )
        )
    return " ".join(str(rng.randrange(10 ** rng.randrange(1, 9))) for _ in range(rng.randrange(40, 200)))


def _cjk(rng: random.Random) -> str:
    """A message in Chinese, Japanese or Korean, sometimes with an identifier, a path or numbers in it."""
    bank = rng.choice((CHINESE, JAPANESE, KOREAN))
    sentences = rng.sample(bank, rng.randrange(2, 7))
    if rng.random() < 0.4:
        sentences.insert(rng.randrange(len(sentences)), f"`{rng.choice(IDENTIFIERS)}()`")
    if rng.random() < 0.3:
        sentences.append(f"({rng.randrange(100)}% / {rng.randrange(10**4)} ms)")
    return "".join(sentences) if bank is not KOREAN else " ".join(sentences)


def _prose(rng: random.Random) -> str:
    return " ".join(rng.sample(PROSE, rng.randrange(2, 8)))


def _code(rng: random.Random) -> str:
    chosen = rng.sample(CODE, rng.randrange(1, 3))
    return "\n".join(chosen) if rng.random() < 0.5 else f"Here is the change:\n\n```\n{chr(10).join(chosen)}```\n"


WRITERS: dict[str, Callable[[random.Random], str]] = {
    "prose": _prose,
    "code": _code,
    "numbers": _numbers,
    "CJK": _cjk,
}
"""How each kind of held-out message is written (the kind is the writer's, not `text_class`'s verdict)."""


def messages(seed: int = 34, sessions: int = 100) -> list[tuple[str, str, str]]:
    """(session name, kind written, text) for `sessions` sessions of `SESSION_MESSAGES` messages, each
    session a random mix: some all English, some mostly CJK, some mostly numbers."""
    rng = random.Random(seed)
    out: list[tuple[str, str, str]] = []
    kinds = list(WRITERS)
    for number in range(sessions):
        weights = [rng.random() ** 2 for _ in kinds]
        for _ in range(SESSION_MESSAGES):
            kind = rng.choices(kinds, weights)[0]
            out.append((f"held-out-{number:03d}", kind, WRITERS[kind](rng)))
    return out
