"""The Jinja environment of the app: Flask's, with a cheaper `a.b` on plain dicts.

A game's view is a dict, and a board template reads it as `v.phase`, `b.score`, some
thousand times a render. Jinja tries the attribute first and, for a dict, fails with an
AttributeError every time before it looks the key up: that exception was the largest
single cost of a render. A plain dict has no attributes but its class's methods, so
asking for those by name first and the key otherwise gives exactly Jinja's answer.
"""

from __future__ import annotations

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
