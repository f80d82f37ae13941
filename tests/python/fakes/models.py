"""Fake OpenAI chat-completions and Gemini generateContent endpoints built on FakeServer.

The answer to a request is computed from the prompt and the image: images are tiny files whose
bytes contain their image id ("IMG:<id> "), so a test knows which image and which step (emotion /
valence / arousal / all) each request was for."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable

from .server import FakeServer, Reply, Request

Answer = Callable[[str, str, str], str]  # (image_id, step, prompt) -> model text


def step_of(prompt: str) -> str:
    if prompt.startswith("Analyze the facial expression"):
        return "all"
    if "How intense or activated" in prompt:
        return "arousal"
    if "How pleasant" in prompt:
        return "valence"
    return "emotion"


def image_id_of(raw: bytes) -> str:
    m = re.search(rb"IMG:([^\s\x00]+)", raw)
    return m.group(1).decode() if m else "?"


# --- OpenAI ---------------------------------------------------------------------------------


def openai_parts(body: dict) -> tuple[str, str, dict]:
    content = body["messages"][0]["content"]
    prompt = next(p["text"] for p in content if p["type"] == "text")
    image = next(p["image_url"] for p in content if p["type"] == "image_url")
    raw = base64.b64decode(image["url"].split(",", 1)[1])
    return prompt, image_id_of(raw), image


def openai_reply(
    text: str,
    model: str = "gpt-4o-mini",
    prompt_tokens: int = 120,
    completion_tokens: int = 9,
    reasoning_tokens: int = 0,
) -> Reply:
    return Reply(
        200,
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "completion_tokens_details": {"reasoning_tokens": reasoning_tokens},
            },
        },
    )


def openai_server(answer: Answer, latency_s: float = 0.0) -> FakeServer:
    def respond(req: Request) -> Reply:
        if not req.path.endswith("/chat/completions"):
            return Reply(404, {"error": {"message": f"no route {req.path}"}})
        prompt, image_id, _ = openai_parts(req.body)
        return openai_reply(answer(image_id, step_of(prompt), prompt), model=req.body.get("model", "?"))

    return FakeServer(respond, latency_s)


def openai_error(status: int, message: str = "error", headers: dict | None = None, **kw) -> Reply:
    return Reply(status, {"error": {"message": message, "type": "fake", "code": None}}, headers or {}, **kw)


# --- Gemini ---------------------------------------------------------------------------------


def gemini_parts(body: dict) -> tuple[str, str]:
    parts = body["contents"][0]["parts"]
    prompt = next(p["text"] for p in parts if "text" in p)
    raw = base64.b64decode(next(p["inlineData"]["data"] for p in parts if "inlineData" in p))
    return prompt, image_id_of(raw)


def gemini_reply(
    text: str, thought: str | None = None, thoughts_tokens: int | None = None, model: str = "gemini-2.5-flash"
) -> Reply:
    parts = ([{"text": thought, "thought": True}] if thought else []) + [{"text": text}]
    usage = {"promptTokenCount": 300, "candidatesTokenCount": 8, "totalTokenCount": 308}
    if thoughts_tokens is not None:
        usage["thoughtsTokenCount"] = thoughts_tokens
        usage["totalTokenCount"] += thoughts_tokens
    return Reply(
        200,
        {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": usage,
            "modelVersion": model,
        },
    )


def gemini_server(
    answer: Answer, thinking: Callable[[dict], tuple[str | None, int | None]] | None = None, latency_s: float = 0.0
) -> FakeServer:
    """`thinking(generation_config)` -> (thought text or None, thoughtsTokenCount or None): lets a
    test answer like the real API does for a given thinking budget / includeThoughts."""

    def respond(req: Request) -> Reply:
        if ":generateContent" not in req.path:
            return Reply(404, {"error": {"code": 404, "message": f"no route {req.path}", "status": "NOT_FOUND"}})
        prompt, image_id = gemini_parts(req.body)
        thought, tokens = thinking(req.body.get("generationConfig", {})) if thinking else (None, None)
        return gemini_reply(answer(image_id, step_of(prompt), prompt), thought, tokens)

    return FakeServer(respond, latency_s)


def gemini_error(status: int, reason: str, headers: dict | None = None, **kw) -> Reply:
    return Reply(
        status, {"error": {"code": status, "message": f"fake {reason}", "status": reason}}, headers or {}, **kw
    )


# --- Anthropic (Messages API) ---------------------------------------------------------------


def anthropic_parts(body: dict) -> tuple[str, str | None, dict | None]:
    """(prompt, image id or None, image source block or None) of a Messages API request."""
    content = body["messages"][0]["content"]
    if isinstance(content, str):
        return content, None, None
    prompt = next(p["text"] for p in content if p["type"] == "text")
    image = next((p["source"] for p in content if p["type"] == "image"), None)
    return prompt, (image_id_of(base64.b64decode(image["data"])) if image else None), image


def anthropic_reply(
    text: str | None,
    model: str = "claude-sonnet-4-6",
    input_tokens: int = 410,
    output_tokens: int = 11,
    thinking: str | None = None,
    thinking_tokens: int | None = None,
    stop_reason: str = "end_turn",
) -> Reply:
    content = ([{"type": "thinking", "thinking": thinking, "signature": "sig-fake"}] if thinking else []) + (
        [{"type": "text", "text": text}] if text is not None else []
    )
    usage = {"input_tokens": input_tokens, "output_tokens": output_tokens}
    if thinking_tokens is not None:
        usage["output_tokens_details"] = {"thinking_tokens": thinking_tokens}
    return Reply(
        200,
        {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage,
        },
    )


def anthropic_server(
    answer: Answer, thinking: Callable[[dict], tuple[str | None, int | None]] | None = None, latency_s: float = 0.0
) -> FakeServer:
    """`thinking(request body)` -> (thinking text or None, thinking tokens or None), like the API
    answers for a request with or without an extended-thinking budget."""

    def respond(req: Request) -> Reply:
        if not req.path.endswith("/v1/messages"):
            return Reply(
                404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {req.path}"}}
            )
        if "max_tokens" not in req.body:  # the real API refuses a request without it
            return anthropic_error(400, "invalid_request_error", "max_tokens: Field required")
        prompt, image_id, _ = anthropic_parts(req.body)
        thought, tokens = thinking(req.body) if thinking else (None, None)
        return anthropic_reply(
            answer(image_id, step_of(prompt), prompt),
            model=req.body.get("model", "?"),
            thinking=thought,
            thinking_tokens=tokens,
            output_tokens=11 + (tokens or 0),
        )

    return FakeServer(respond, latency_s)


def anthropic_error(status: int, kind: str, message: str = "error", headers: dict | None = None, **kw) -> Reply:
    return Reply(status, {"type": "error", "error": {"type": kind, "message": message}}, headers or {}, **kw)
