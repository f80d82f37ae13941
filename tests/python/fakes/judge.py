"""A fake LLM judge behind the fake OpenAI chat-completions server: it reads the two responses out
of the rendered judge prompt and prefers the one that contains a marker word, answering in the
log's output format with the formatting noise real judges produce (full-width colons, bold)."""

from __future__ import annotations

import re

from .models import openai_reply
from .server import FakeServer, Reply, Request

_CANDIDATES = re.compile(r"\[응답 후보\] 응답 1: (.*) / 응답 2: (.*)")  # v1, the log's prompt
_FENCED = re.compile(r"<<<응답 1 시작>>>\n(.*?)\n<<<응답 1 끝>>>\n<<<응답 2 시작>>>\n(.*?)\n<<<응답 2 끝>>>", re.S)


def responses_of(prompt: str) -> tuple[str, str]:
    m = _FENCED.search(prompt) or _CANDIDATES.search(prompt)
    if not m:
        raise AssertionError("prompt has neither fenced responses nor an [응답 후보] line")
    return m.group(1), m.group(2)


def answer_block(prompt: str, verdict: str) -> str:
    """A fenced prompt (v2) asks for its verdict in one <<<판정>>> block at the end."""
    return f"응답을 비교했습니다.\n<<<판정>>>\n{verdict}\n<<<판정 끝>>>" if "<<<판정>>>" in prompt else verdict


def verdict_text(prompt: str, marker: str = "좋은") -> str:
    r1, r2 = responses_of(prompt)
    v = "1" if marker in r1 and marker not in r2 else "2" if marker in r2 and marker not in r1 else "tie"
    return answer_block(
        prompt,
        f"**1축 (공감 반응)**： {v}\n**2축 (한국어 자연)**： tie\n**3축 (맥락 일관)**：응답 {v}\n"
        f"**종합**： {v}\n**이유**： 표지 단어 '{marker}' 가 있는 응답이 더 낫다.",
    )


def judge_server(answer=verdict_text) -> FakeServer:
    def respond(req: Request) -> Reply:
        if not req.path.endswith("/chat/completions"):
            return Reply(404, {"error": {"message": f"no route {req.path}"}})
        prompt = req.body["messages"][0]["content"]
        if not isinstance(prompt, str):
            return Reply(400, {"error": {"message": "judge requests must be text-only"}})
        return openai_reply(answer(prompt), model=req.body.get("model", "?"), prompt_tokens=800, completion_tokens=120)

    return FakeServer(respond)


def gemini_judge_server(answer=verdict_text) -> FakeServer:
    """The same judge behind a fake Gemini generateContent endpoint; refuses requests with an image."""
    from .models import gemini_reply

    def respond(req: Request) -> Reply:
        if ":generateContent" not in req.path:
            return Reply(404, {"error": {"code": 404, "message": f"no route {req.path}", "status": "NOT_FOUND"}})
        parts = req.body["contents"][0]["parts"]
        if any("inlineData" in p for p in parts):
            return Reply(
                400,
                {"error": {"code": 400, "message": "judge requests must be text-only", "status": "INVALID_ARGUMENT"}},
            )
        return gemini_reply(answer(parts[0]["text"]), model=req.path.split("/models/")[-1].split(":")[0])

    return FakeServer(respond)


def anthropic_judge_server(answer=verdict_text) -> FakeServer:
    """The same judge behind a fake Anthropic Messages endpoint; refuses requests with an image."""
    from .models import anthropic_error, anthropic_parts, anthropic_reply

    def respond(req: Request) -> Reply:
        if not req.path.endswith("/v1/messages"):
            return anthropic_error(404, "not_found_error", f"no route {req.path}")
        prompt, image_id, image = anthropic_parts(req.body)
        if image is not None:
            return anthropic_error(400, "invalid_request_error", "judge requests must be text-only")
        return anthropic_reply(answer(prompt), model=req.body.get("model", "?"), input_tokens=900, output_tokens=150)

    return FakeServer(respond)
