"""The Jinja environment of the app: Flask's, with a cheaper `a.b` on plain dicts.

A game's view is a dict, and a board template reads it as `v.phase`, `b.score`, some
thousand times a render. Jinja tries the attribute first and, for a dict, fails with an
AttributeError every time before it looks the key up: that exception was the largest
single cost of a render. A plain dict has no attributes but its class's methods, so
asking for those by name first and the key otherwise gives exactly Jinja's answer.
"""

from __future__ import annotations

import flask
from flask import current_app, has_request_context, request
from flask.templating import Environment

_DICT_ATTRIBUTES = frozenset(dir(dict))


class ViewEnvironment(Environment):
    def getattr(self, obj, attribute):
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


# Relative URLs already built, per process: a view builds the same few (its table's act,
# undo and view URLs, its stylesheet's) for every phone and version, and building one costs
# more than the rest of a short template.
_BUILT_LIMIT = 4096


def url_for(endpoint: str, **values) -> str:
    """`flask.url_for`, remembering each relative URL it built for a request's script root
    (the one thing besides its arguments that a relative URL depends on here)."""
    if not has_request_context() or any(key.startswith("_") for key in values):
        return flask.url_for(endpoint, **values)  # external URLs, anchors: built each time
    built = current_app.extensions.setdefault("forest_built_urls", {})
    try:
        key = (endpoint, request.script_root, *sorted(values.items()))
        found = built.get(key)
    except TypeError:  # a value that cannot be a key
        return flask.url_for(endpoint, **values)
    if found is None:
        found = flask.url_for(endpoint, **values)
        if len(built) >= _BUILT_LIMIT:
            built.clear()
        built[key] = found
    return found
