"""A condition's backend, and the concurrent calls each provider gets by default."""

from __future__ import annotations

from ...runner import SecretRegistry
from ..conditions import Condition
from .base import Backend

# Concurrent calls per provider/server unless the user says otherwise.
DEFAULT_CONCURRENCY = {"openai": 8, "gemini": 8, "anthropic": 4, "openai-compatible": 2, "mlx": 1, "fer": 1}


def make_backend(condition: Condition, secrets: SecretRegistry) -> Backend:
    b = condition.backend
    if b in ("openai", "openai-compatible"):
        from .openai_backend import OpenAIBackend

        if b == "openai-compatible" and not condition.base_url:
            raise ValueError(
                f"condition {condition.condition_id}: backend openai-compatible needs a base_url "
                "(set it in a conditions YAML file or with --base-url)"
            )
        return OpenAIBackend(base_url=condition.base_url, api_key_env=condition.api_key_env, secrets=secrets, name=b)
    if b == "gemini":
        from .gemini_backend import GeminiBackend

        return GeminiBackend(base_url=condition.base_url, api_key_env=condition.api_key_env, secrets=secrets)
    if b == "anthropic":
        from .anthropic_backend import AnthropicBackend

        return AnthropicBackend(base_url=condition.base_url, api_key_env=condition.api_key_env, secrets=secrets)
    if b == "mlx":
        from .mlx_backend import MlxBackend

        return MlxBackend()
    if b == "fer":
        from .fer_backend import FerBackend

        return FerBackend()
    raise ValueError(
        f"condition {condition.condition_id}: backend {b!r} cannot be run by `infer` "
        "(import its predictions with `rater1001 ingest model_predictions`)"
    )
