"""`Design` → English words: the image prompt and negative prompt for remote models, and a style's title.

The prompt asks for a flat, front-on swatch of the design that fills the frame with the nail tip at the top
edge, because that is what `artwork.render.textures_from_swatch` cuts nail textures from (ARCHITECTURE.md §10).
"""

from __future__ import annotations

from nailmirror_desktop.core.generation import vocabulary as vocab
from nailmirror_desktop.core.generation.design import DEFAULT_FINISH, Color, Design, FingerDesign, Pattern

UNKNOWN_TERMS_MAX_CHARS = 200


def _color_words(color: Color) -> str:
    name = vocab.COLORS[color.id][1] if color.id in vocab.COLORS else color.id.replace("_", " ")
    return f"{color.tone} {name}" if color.tone else name


def _pattern_words(pattern: Pattern) -> str:
    words = vocab.PATTERNS[pattern.kind][0] if pattern.kind in vocab.PATTERNS else pattern.kind.replace("_", " ")
    if pattern.variant:
        words = f"{pattern.variant} {words}"
    if pattern.color is not None:
        words = f"{_color_words(pattern.color)} {words}"
    return words


def _finish_words(finish: str) -> str:
    return vocab.FINISHES[finish][0] if finish in vocab.FINISHES else finish.replace("_", " ")


def describe_finger_design(design: FingerDesign) -> str:
    """English words for one (resolved) finger design, e.g. 'matte milky white with gold glitter'."""
    parts = []
    if design.base_color:
        parts.append(f"{_color_words(design.base_color)} polish")
    if design.finish:
        parts.append(f"{_finish_words(design.finish)} finish")
    text = ", ".join(parts) or "same colour"
    if design.patterns:
        text += " with " + ", ".join(_pattern_words(p) for p in design.patterns)
    return text


def design_title(design: Design) -> str:
    """A short English name for a design (used when a generated style needs a name)."""
    words = [_color_words(design.base_color)]
    if design.finish != DEFAULT_FINISH:
        words.append(_finish_words(design.finish))
    words += [vocab.PATTERNS.get(p.kind, (p.kind,))[0] for p in design.patterns[:2]]
    title = " ".join(words)
    if design.accents:
        title += " + accent"
    return title[:1].upper() + title[1:]


def english_prompt(design: Design) -> str:
    """A clean English prompt for a remote image model asking for a flat, front-on design swatch.

    The prompt asks for the design to fill the frame with the nail tip at the top edge, and for no hands,
    outlines or text (see the module docstring).
    """
    main = design.finger_design("middle" if "middle" not in design.accent_fingers else "thumb")
    sentences = [
        "Flat, front-on close-up swatch of a nail polish design that fills the entire square frame edge to edge",
        f"Design: {describe_finger_design(main)}",
    ]
    sentences += _accent_sentences(design)
    if design.shape or design.length:
        sentences.append(f"For {design.length or ''} {design.shape or ''} nails".replace("  ", " "))
    if design.themes:
        sentences.append("Theme: " + ", ".join(vocab.THEMES[t][0] for t in design.themes if t in vocab.THEMES))
    if design.unknown_terms:
        # capped so that a long free-text request cannot push the framing instructions past a provider's
        # prompt limit (DashScope takes 800 characters)
        sentences.append("Also: " + ", ".join(design.unknown_terms)[:UNKNOWN_TERMS_MAX_CHARS])
    sentences.append("The top edge of the image is the nail tip (free edge), the bottom edge is the cuticle")
    sentences.append("Even soft studio lighting, photorealistic polish texture, no hands, no fingers, "
                     "no nail outline, no background, no text, no watermark")
    if design.excluded:
        sentences.append("Avoid: " + ", ".join(_excluded_words(e) for e in design.excluded))
    return ". ".join(sentences) + "."


def _accent_sentences(design: Design) -> list[str]:
    """One sentence per distinct accent design, naming the fingers that wear it."""
    by_design: dict[str, list[str]] = {}
    for accent in design.accents:
        words = describe_finger_design(design.finger_design(accent.finger))
        by_design.setdefault(words, []).append(accent.finger)
    return [f"Accent nail ({' and '.join(fingers)} finger): {words}" for words, fingers in by_design.items()]


def _excluded_words(term_id: str) -> str:
    for table in (vocab.PATTERNS, vocab.FINISHES):
        if term_id in table:
            return table[term_id][0]
    if term_id in vocab.COLORS:
        return vocab.COLORS[term_id][1]
    if term_id in vocab.THEMES:
        return vocab.THEMES[term_id][0]
    return term_id.replace("_", " ")


def negative_prompt(design: Design) -> str:
    """What a remote model should not draw (for providers with a negative-prompt field): the framing
    mistakes that break swatch cropping plus everything the customer said no to."""
    words = ["hands", "fingers", "nail outline", "text", "watermark", "background objects"]
    words += [_excluded_words(e) for e in design.excluded]
    return ", ".join(words)
