"""rater1001: can this AI model replace my human raters?"""

__version__ = "0.1.0"
