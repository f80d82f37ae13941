"""The study's own words in the report. The report's fixed text (titles, captions, questions, the
marts' descriptions) is written in the warehouse's slot names, which are the paper's (`emotion`,
`race`, `gender`; docs/study_shape.md, "Factor names"). For a study that names its factors
otherwise, every text a person reads is given in the study's names ("Race x gender" over a genre
audit reads "Genre x source"), and the blocks about a dimension the study did not declare
(valence, arousal, naturalness) are left out rather than shown empty."""

from __future__ import annotations

import re
from dataclasses import replace

from ..study import Study

SLOTS = ("emotion", "race", "gender")
PAPER_DIMENSIONS = ("valence", "arousal", "naturalness")
# what a slot the study leaves empty is called in a sentence
UNFILLED = {"emotion": "category", "race": "first audit factor", "gender": "second audit factor"}


def slot_words(study: Study) -> dict[str, str]:
    """Slot -> the word the study uses for it; empty for the paper's own names. A slot's word that
    is also one of the study's own names (MultiPICo's rater attribute `gender`) stays: it is the
    study's word there."""
    filled = study.factor_slots
    own = {f.name for f in study.factors} | set(study.rater_attributes) | set(study.dimensions)
    words = {slot: filled.get(slot, UNFILLED[slot]).replace("_", " ") for slot in SLOTS}
    return {slot: word for slot, word in words.items() if word != slot and slot not in own}


def _pattern(words: dict[str, str]) -> re.Pattern | None:
    if not words:
        return None
    # whole words only: an identifier (classification_by_emotion, true_emotion) stays as it is
    alternatives = "|".join(sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![\w])({alternatives})(s?)(?![\w])", re.IGNORECASE)


def translator(study: Study):
    """text -> the text in the study's words (identity for the paper's names)."""
    words = slot_words(study)
    pattern = _pattern(words)

    def translate(text):
        if pattern is None or not isinstance(text, str):
            return text

        def one(m: re.Match) -> str:
            word = words[m.group(1).lower()]
            word = (word[:-1] + "ies" if word.endswith("y") else word + "s") if m.group(2) else word
            return word[0].upper() + word[1:] if m.group(1)[0].isupper() else word

        return pattern.sub(one, text)

    return translate


def translate_html(html: str, study: Study) -> str:
    """The report's HTML with every text node (never a script, style, table body, tag or
    attribute) in the study's words."""
    translate = translator(study)
    if not slot_words(study):
        return html
    # scripts, styles and tables' bodies (data: a cell holds the study's own values) stay as they are
    kept = r"(<script\b.*?</script>|<style\b.*?</style>|<tbody\b.*?</tbody>)"
    parts = re.split(kept, html, flags=re.S | re.I)
    out = []
    for part in parts:
        if re.match(r"<(script|style|tbody)\b", part, re.I):
            out.append(part)
        else:
            out.append(re.sub(r">([^<]+)<", lambda m: ">" + translate(m.group(1)) + "<", part))
    return "".join(out)


def undeclared_dimensions(study: Study) -> set[str]:
    """The paper's dimensions this study does not rate: their blocks are left out."""
    return {d for d in PAPER_DIMENSIONS if d not in study.dimensions}


def about_undeclared(name: str, study: Study) -> bool:
    """Whether a mart's or block's name is about a paper dimension the study does not rate
    (naturalness_by_emotion in a study without naturalness)."""
    return any(re.search(rf"(?<![a-z]){d}(?![a-z])", name, re.IGNORECASE) for d in undeclared_dimensions(study))


def studys_sections(sections, study: Study):
    """The sections without the blocks (and sections) about a paper dimension the study does not
    rate, and without classification when it has no category: a study of fluency gets no empty
    valence tables."""
    gone = undeclared_dimensions(study)
    # a paper dimension's agreement section needs the models to rate it (its figures read z_<dim>)
    unrated = {d for d in PAPER_DIMENSIONS if d not in study.model_dimensions}
    if study.category is None:  # nothing to classify: no classification section at all
        unrated.add("classification")
    if not gone and not unrated:
        return tuple(sections)
    about = re.compile(rf"\b({'|'.join(gone)})\b", re.IGNORECASE) if gone else None
    out = []
    for s in sections:
        if s.key in gone | unrated:
            continue
        if about is None:
            out.append(s)
            continue
        items = tuple(
            i
            for i in s.items
            if not about.search(getattr(i, "title", "") or "")
            and not any(about_undeclared(t, study) for t in getattr(i, "reads", ()) or ())
        )
        if items:
            out.append(replace(s, items=items))
    return tuple(out)
