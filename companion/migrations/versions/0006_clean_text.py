"""Stored text cleaned of what the input rules (companion/inbound.py) now refuse and what
broke pages: lone surrogates (half a character; no page holding one can be written as UTF-8)
and control characters (other than tab, line feed and carriage return), in names, options,
action parameters and everything that repeats them (a table's state, a history entry's log,
a campaign). A surrogate could only be stored inside JSON (as a \\udXXX escape), a control
character anywhere.

A surrogate is dropped; a control character becomes a space, then runs of spaces become one
and the ends are trimmed, as a name is kept; a name left empty becomes "?". The same text is
cleaned the same way in every column, so a seat's name still matches the players' list and
the state. Each change is logged by table, column and row with the number of characters
taken, never the text (action parameters may hold a player's secret pick).

Not undone by the downgrade: what was taken out is kept nowhere.

Revision ID: 0006
Revises: 0005
"""

import json
import logging
import re

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

log = logging.getLogger("forest_table.migrations")

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

# (table, key columns, text columns, JSON columns)
_COLUMNS = (
    ("game_table", ("id",), (), ("options", "players", "snapshot")),
    ("seat", ("table_id", "seat"), ("name",), ()),
    ("action", ("table_id", "seq"), (), ("params",)),
    ("table_request", ("table_id",), (), ("options",)),
    ("played_game", ("id",), (), ("options", "asked_options", "outcome", "log")),
    ("played_seat", ("played_id", "seat"), ("name", "name_key"), ()),
    ("name_merge", ("alias_key",), ("alias", "person_key", "person"), ()),
    ("campaign", ("id",), ("name",), ("state",)),
    ("campaign_event", ("campaign_id", "seq"), ("text",), ()),
)


def clean_text(text: str) -> str:
    cleaned = _CONTROL.sub(" ", _SURROGATE.sub("", text))
    if cleaned == text:
        return text
    return re.sub(" {2,}", " ", cleaned).strip() or "?"


def clean_json(value):
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean_json(item) for item in value]
    if isinstance(value, dict):
        return {clean_text(key): clean_json(item) for key, item in value.items()}
    return value


def _taken(before: str, after: str) -> int:
    return len(_SURROGATE.findall(before)) + len(_CONTROL.findall(before)) if before != after else 0


def upgrade() -> None:
    bind = op.get_bind()
    for name, keys, texts, jsons in _COLUMNS:
        table = sa.table(name, *(sa.column(c) for c in keys + texts + jsons))
        rows = bind.execute(sa.select(*table.c)).mappings().all()
        for row in rows:
            changed = {}
            for column in texts:
                if row[column] is not None:
                    cleaned = clean_text(row[column])
                    if cleaned != row[column]:
                        changed[column] = (cleaned, _taken(row[column], cleaned))
            for column in jsons:
                if row[column] is None:
                    continue
                value = json.loads(row[column])
                cleaned = clean_json(value)
                if cleaned != value:
                    # Counted on the JSON's values: json.dumps escapes what it finds there.
                    before = json.dumps(value, ensure_ascii=False)
                    changed[column] = (json.dumps(cleaned), _taken(before, "*"))
            if changed:
                where = [table.c[k] == row[k] for k in keys]
                bind.execute(sa.update(table).where(*where).values(
                    {column: value for column, (value, _) in changed.items()}))
                for column, (_, taken) in changed.items():
                    log.warning("Cleaned %s.%s of %s: %d character(s) the input rules refuse "
                                "taken out.", name, column,
                                ", ".join(f"{k}={row[k]}" for k in keys), taken)


def downgrade() -> None:
    pass  # what was taken out is kept nowhere
