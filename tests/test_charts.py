"""The server-drawn line charts: x labels that never repeat, lines that never hide each other."""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET

from companion import charts

from .history_fixture import T0, stats_export

SVG = "{http://www.w3.org/2000/svg}"


def parse(markup) -> ET.Element:
    return ET.fromstring(str(markup))


def x_labels(svg: ET.Element) -> list[str]:
    """The labels under the x axis (the y axis labels sit left of the plot)."""
    return [t.text for t in svg.iter(SVG + "text")
            if t.get("class") == "axis" and float(t.get("x")) >= charts.LEFT]


def axis_title(svg: ET.Element) -> str | None:
    found = [t.text for t in svg.iter(SVG + "text") if t.get("class") == "axis-title"]
    return found[0] if found else None


def lines(svg: ET.Element) -> list[list[tuple[float, float]]]:
    return [[tuple(map(float, point.split(","))) for point in poly.get("points").split()]
            for poly in svg.iter(SVG + "polyline")]


def test_games_on_one_day_are_numbered_instead_of_repeating_the_date():
    svg = parse(charts.line_chart([{"label": "Ana", "values": [1, 1, 2, 3]}],
                                  ["03 Dec", "03 Dec", "03 Dec", "04 Dec"], "Wins", "games"))
    labels = x_labels(svg)
    assert labels == ["1", "2", "3", "4"]
    assert axis_title(svg) == "games in order, 03 Dec – 04 Dec"


def test_many_games_on_one_day_keep_distinct_labels_when_thinned():
    svg = parse(charts.line_chart([{"label": "Ana", "values": list(range(20))}],
                                  ["03 Dec"] * 20, "Wins", "games"))
    labels = x_labels(svg)
    assert len(labels) == len(set(labels)) > 2
    assert labels[0] == "1" and labels[-1] == "20"
    assert axis_title(svg) == "games in order, all 03 Dec"


def test_distinct_labels_are_kept_as_given():
    svg = parse(charts.line_chart([{"label": "Ana", "values": [1, 2, 3]}],
                                  ["01 Dec", "02 Dec", "03 Dec"], "Wins", "games"))
    assert x_labels(svg) == ["01 Dec", "02 Dec", "03 Dec"]
    assert axis_title(svg) == "games"


def test_equal_lines_are_drawn_apart_and_a_lone_value_stays_exact():
    same = [0, 1, 1, 2]
    svg = parse(charts.line_chart([{"label": "Ana", "values": same}, {"label": "Ben", "values": same},
                                   {"label": "Cara", "values": [0, 0, 3, 1]}], ["1", "2", "3", "4"], "Score"))
    ana, ben, cara = lines(svg)
    for (ax, ay), (bx, by) in zip(ana, ben):
        assert ax == bx
        # Apart by more than a stroke (3 px), close enough to read the same value.
        assert 3 < abs(ay - by) <= 2 * charts.TIE_SPREAD
    # Cara ties with Ana and Ben only at the first point; her 3 and her 1 are not nudged.
    alone = parse(charts.line_chart([{"label": "Cara", "values": [0, 0, 3, 1]}], ["1", "2", "3", "4"], "Score"))
    (cara_alone,) = lines(alone)
    assert cara[2:] == cara_alone[2:]
    assert cara[0] != cara_alone[0]
    # Three lines meeting at one point sit at three different heights there.
    assert len({ana[0][1], ben[0][1], cara[0][1]}) == 3


def test_stats_page_chart_has_no_repeated_date_and_every_players_line_shows(client):
    export = stats_export()
    # Every finished game on the same afternoon, an hour apart.
    for hour, game in enumerate(export["games"]):
        game["started_at"] = T0 + hour * 3600
        game["ended_at"] = T0 + hour * 3600 + 1800
        for line in game["log"]:
            line["at"] = T0 + hour * 3600 + 60
    resp = client.post("/api/history/import", data=json.dumps(copy.deepcopy(export)).encode(),
                       content_type="application/json")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    page = client.get("/history/stats").get_data(as_text=True)
    svg = parse(page[page.index("<svg class=\"chart\""):page.index("</svg>", page.index("<svg class=\"chart\"")) + 6])
    labels = x_labels(svg)
    assert len(labels) == len(set(labels)) > 1
    assert "in order" in axis_title(svg)
    # Anna and Ben win the same games from the second on: their lines stay apart.
    drawn = lines(svg)
    assert len(drawn) >= 2
    for one, other in zip(drawn, drawn[1:]):
        assert one != other
