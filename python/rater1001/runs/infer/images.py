"""Which files `infer` may send: a file inside the images folder (symlinks resolved), that is an
image a provider accepts. Every problem is a sentence naming the stimulus, column and value."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image, UnidentifiedImageError

MB = 1024 * 1024
# A guard against decompression bombs and absurd inputs; providers resize large images anyway.
MAX_PIXELS = 50_000_000
MIME = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "WEBP": "image/webp",
    "GIF": "image/gif",
    "HEIF": "image/heif",
    "BMP": "image/bmp",
    "TIFF": "image/tiff",
}


@dataclass(frozen=True)
class Limits:
    formats: frozenset[str] | None  # PIL format names; None = anything the backend can decode
    max_bytes: int | None
    animated: bool = False


# From the providers' vision documentation (OpenAI: PNG, JPEG, WEBP, non-animated GIF, up to 20 MB
# per image; Gemini: PNG, JPEG, WEBP, HEIC/HEIF inline up to a 20 MB request; Anthropic: PNG, JPEG,
# WEBP, GIF up to 5 MB per image through the API). Check before relying
# on a limit close to the edge: providers change them.
LIMITS = {
    "openai": Limits(frozenset({"PNG", "JPEG", "WEBP", "GIF"}), 20 * MB),
    "openai-compatible": Limits(frozenset({"PNG", "JPEG", "WEBP", "GIF"}), 20 * MB),
    "gemini": Limits(frozenset({"PNG", "JPEG", "WEBP", "HEIF"}), 20 * MB),
    "anthropic": Limits(frozenset({"PNG", "JPEG", "WEBP", "GIF"}), 5 * MB),
    "mlx": Limits(None, None, animated=True),
}


@dataclass(frozen=True)
class ImageFile:
    image_id: str
    path: Path  # resolved, inside the images folder
    sha256: str
    format: str
    width: int
    height: int
    n_bytes: int
    animated: bool = False

    @property
    def mime(self) -> str:
        return MIME.get(self.format, f"image/{self.format.lower()}")


def resolve_inside(root: Path, file_path: str) -> tuple[Path | None, str | None]:
    """(resolved file, None) or (None, why not). Absolute paths, `..` and links that lead out of
    the images folder are refused before anything is opened."""
    rel = Path(file_path)
    if rel.is_absolute():
        return None, "is an absolute path; it must be relative to the images folder"
    if ".." in rel.parts:
        return None, "contains '..'; it must stay inside the images folder"
    real_root = root.resolve()
    try:
        real = (real_root / rel).resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # a link loop, a NUL byte
        return None, f"cannot be resolved ({exc})"
    if not real.is_relative_to(real_root):
        return None, f"leads to {real}, outside the images folder {real_root} (a symbolic link?)"
    if not real.is_file():
        return None, f"no file {root / rel}"
    return real, None


def inspect(path: Path) -> tuple[str, int, int, bool]:
    """(format, width, height, animated) of a decodable image; ValueError saying why otherwise."""
    try:
        with Image.open(path) as im:
            fmt, (w, h) = im.format, im.size
            if w < 1 or h < 1 or w * h > MAX_PIXELS:
                raise ValueError(f"has {w}x{h} pixels (accepted: 1 to {MAX_PIXELS:,} pixels)")
            im.load()
            return fmt or "?", w, h, bool(getattr(im, "is_animated", False))
    except (UnidentifiedImageError, Image.DecompressionBombError) as exc:
        raise ValueError(f"is not an image that can be read ({type(exc).__name__})") from None
    except (OSError, SyntaxError) as exc:
        raise ValueError(f"is not a decodable image ({exc})") from None


def limit_problem(image: ImageFile, backend: str) -> str | None:
    lim = LIMITS.get(backend)
    if lim is None:
        return None
    if lim.formats is not None and image.format not in lim.formats:
        return f"is {image.format}; backend {backend} accepts {', '.join(sorted(lim.formats))}"
    if lim.max_bytes is not None and image.n_bytes > lim.max_bytes:
        return f"is {image.n_bytes / MB:.1f} MB; backend {backend} accepts up to {lim.max_bytes / MB:.0f} MB"
    if image.animated and not lim.animated:
        return f"is an animated {image.format}; backend {backend} accepts still images only"
    return None
