"""The Hangul font shipped with the package (README.md here): CSS for the HTML pages
(`css.font_face_css`), and the folder the PNG renderer reads fonts from."""

from .css import FAMILY, FOLDER, STACK, font_face_css

__all__ = ["FAMILY", "FOLDER", "STACK", "font_face_css"]
