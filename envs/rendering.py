"""Render modes shared by every bridgerl env (Gymnasium and PettingZoo): ``"ansi"`` returns the table as text
(the rules modules' ``render_text``), ``"rgb_array"`` the same table drawn as an image (uint8[height, width, 3],
what Stable-Baselines3's ``make_vec_env`` and video recorders ask for), ``"human"`` prints the text (a table of
text needs no window). Any other mode is refused when the env is made, in one line, as Gymnasium's own envs do."""

from __future__ import annotations

import numpy as np

RENDER_MODES = ["ansi", "rgb_array", "human"]
"""What ``metadata["render_modes"]`` lists in every env."""

_SUITS = str.maketrans({"♠": "S", "♥": "H", "♦": "D", "♣": "C"})
_CELL = (6, 11)  # the built-in bitmap font's character cell (width, height) in pixels
_MARGIN = 8


def check_render_mode(render_mode: str | None) -> str | None:
    """``render_mode`` when it is None or one of `RENDER_MODES`; else a one-line ValueError naming them."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {', '.join(map(repr, RENDER_MODES))}, got "
                         f"{render_mode!r}")
    return render_mode


def render(render_mode: str | None, text: str):
    """What ``env.render()`` returns for the table ``text`` in ``render_mode``: the text, an RGB image, or None
    (``"human"`` prints it; no mode: nothing)."""
    if render_mode == "ansi":
        return text
    if render_mode == "rgb_array":
        return text_image(text)
    if render_mode == "human":
        print(text)
    return None


IMAGE_TEXT = (80, 36)
"""The text an image holds, in characters (columns, rows): every frame of every env has the same size (video
recorders need that), 496 x 412 pixels; a longer line or text is cut."""


def text_image(text: str) -> np.ndarray:
    """uint8[412, 496, 3]: ``text`` in black on white in Pillow's built-in fixed-width bitmap font (always there, no
    font files needed), the suit symbols written as the letters S H D C (`IMAGE_TEXT` characters at most)."""
    from PIL import Image, ImageDraw, ImageFont

    lines = text.translate(_SUITS).encode("latin-1", "replace").decode("latin-1").rstrip("\n").split("\n")
    columns, rows = IMAGE_TEXT
    lines = [line[:columns] for line in lines[:rows]]
    width, height = 2 * _MARGIN + _CELL[0] * columns, 2 * _MARGIN + _CELL[1] * rows
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default_imagefont()
    for row, line in enumerate(lines):
        draw.text((_MARGIN, _MARGIN + row * _CELL[1]), line, fill="black", font=font)
    return np.asarray(image, dtype=np.uint8)


__all__ = ["IMAGE_TEXT", "RENDER_MODES", "check_render_mode", "render", "text_image"]
