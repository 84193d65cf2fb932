"""Line charts as SVG markup built on the server: no chart library, no script.

Colours come from CSS classes (s0, s1, ...) so the page's dark or light theme applies;
each series also has its own dash and marker shape, so lines stay apart without colour.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from .games.words import t

WIDTH = 340
HEIGHT = 250
LEFT, RIGHT, TOP, BOTTOM = 40, 14, 14, 54
SERIES_STYLES = 8
# Lines with equal values at a point are drawn this far apart (px), so none hides another.
TIE_SPREAD = 5.0
TIE_SPREAD_MAX = 20.0


def nice_step(high: float, ticks: int = 4) -> int:
    """A round gridline step (1, 2, 5, 10, 20, 50...) giving about `ticks` lines up to `high`."""
    raw = max(1.0, high / ticks)
    magnitude = 1
    while magnitude * 10 <= raw:
        magnitude *= 10
    for factor in (1, 2, 5, 10):
        if magnitude * factor >= raw:
            return magnitude * factor
    return magnitude * 10


def line_chart(series: list[dict], x_labels: list[str], title: str, x_title: str = "",
               say=str) -> Markup:
    """series: [{"label": str, "values": [number, ...]}]; one x label per value.

    `title` and `x_title` may be Text; `say` says a Text in the page's language (the web
    layer's `i18n.say`; English by default), the chart's own words with it."""
    count = max((len(s["values"]) for s in series), default=0)
    values = [v for s in series for v in s["values"] if v is not None]
    low = min(0, min(values, default=0))
    high = max(values, default=0)
    step = nice_step(max(1, high - low))
    top = step * -(-high // step) if high > 0 else step
    bottom = -step * -(-(-low) // step) if low < 0 else 0
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (count - 1) if count > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h * (top - v) / (top - bottom)

    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
             f'aria-label="{escape(say(title))}" xmlns="http://www.w3.org/2000/svg">',
             f"<title>{escape(say(title))}</title>"]
    tick = bottom
    while tick <= top:
        parts.append(f'<line class="grid" x1="{LEFT}" y1="{y(tick):.1f}" x2="{WIDTH - RIGHT}" y2="{y(tick):.1f}"/>')
        parts.append(f'<text class="axis" x="{LEFT - 10}" y="{y(tick) + 5:.1f}" text-anchor="end">{tick}</text>')
        tick += step
    labels = list(x_labels[:count])
    shown = _shown_positions(count, len(labels))
    labels, axis_title = _distinct_labels(labels, shown, x_title)
    for i in shown:
        label = labels[i]
        # The outer labels lean inwards so that nothing is cut at the edges.
        anchor = "middle" if count == 1 or 0 < i < count - 1 else ("start" if i == 0 else "end")
        if count > 1 and len(label) <= 2:
            anchor = "middle"
        parts.append(f'<text class="axis" x="{x(i):.1f}" y="{HEIGHT - BOTTOM + 22}" '
                     f'text-anchor="{anchor}">{escape(label)}</text>')
    if axis_title:
        parts.append(f'<text class="axis-title" x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 6}" '
                     f'text-anchor="middle">{escape(say(axis_title))}</text>')
        desc = t("{axis}. Lines with equal values are drawn side by side, a few pixels apart.",
                 axis=axis_title)
        parts.append(f"<desc>{escape(say(desc))}</desc>")
    nudges = _tie_nudges(series, count)
    for index, s in enumerate(series):
        style = f"s{index % SERIES_STYLES}"
        points = [(x(i), y(v) + nudges[index][i]) for i, v in enumerate(s["values"]) if v is not None]
        if not points:
            continue
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        parts.append(f'<g class="series {style}"><title>{escape(s["label"])}</title>')
        if len(points) > 1:
            parts.append(f'<polyline points="{path}"/>')
        for px, py in points:
            parts.append(_marker(index, px, py))
        parts.append("</g>")
    parts.append("</svg>")
    return Markup("".join(parts))


def _shown_positions(count: int, labelled: int) -> list[int]:
    """Label every x position when they fit, else the first, the last and a few between."""
    every = max(1, -(-count // 6))
    return [i for i in range(min(count, labelled))
            if i == count - 1 or (i % every == 0 and count - 1 - i >= every)]


def _distinct_labels(labels: list[str], shown: list[int], x_title: str) -> tuple[list[str], str]:
    """The x labels, numbered 1, 2, 3... instead when two shown ones would read the same
    (several games on one day); the axis title then says which span the numbers cover."""
    picked = [labels[i] for i in shown]
    if len(set(picked)) == len(picked):
        return labels, x_title
    span = t("all {day}", day=labels[0]) if labels[0] == labels[-1] else f"{labels[0]} – {labels[-1]}"
    return ([str(i + 1) for i in range(len(labels))],
            t("{axis} in order, {span}", axis=x_title, span=span) if x_title else span)


def _tie_nudges(series: list[dict], count: int) -> list[list[float]]:
    """Vertical offsets (px) that draw equal values side by side; a value shared with no
    other line stays exactly where it belongs."""
    nudges = [[0.0] * count for _ in series]
    for i in range(count):
        groups: dict[float, list[int]] = {}
        for index, s in enumerate(series):
            values = s["values"]
            if i < len(values) and values[i] is not None:
                groups.setdefault(values[i], []).append(index)
        for members in groups.values():
            if len(members) < 2:
                continue
            step = min(TIE_SPREAD, TIE_SPREAD_MAX / (len(members) - 1))
            middle = (len(members) - 1) / 2
            for rank, index in enumerate(members):
                nudges[index][i] = (rank - middle) * step
    return nudges


def _marker(index: int, px: float, py: float) -> str:
    shape = index % 3
    if shape == 0:
        return f'<circle cx="{px:.1f}" cy="{py:.1f}" r="4.5"/>'
    if shape == 1:
        return f'<rect x="{px - 4:.1f}" y="{py - 4:.1f}" width="8" height="8"/>'
    return f'<path d="M{px:.1f},{py - 5.5:.1f} L{px + 5:.1f},{py + 4:.1f} L{px - 5:.1f},{py + 4:.1f} Z"/>'


def style_class(index: int) -> str:
    """The CSS class of series `index`, for a legend swatch beside the chart."""
    return f"s{index % SERIES_STYLES}"


def legend_mark(index: int) -> Markup:
    """A short sample of series `index`'s line and marker, for the legend."""
    return Markup(f'<svg class="legend-mark" viewBox="0 0 34 12" aria-hidden="true">'
                  f'<g class="series {style_class(index)}"><polyline points="2,6 32,6"/>'
                  f'{_marker(index, 17, 6)}</g></svg>')
