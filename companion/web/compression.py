"""Pages, view fragments and JSON go out compressed (Flask-Compress); event streams never.

A table page is mostly markup that repeats, so it shrinks to a fraction; that matters on
a crowded Wi-Fi. Static files are compressed once in `assets`. A server-sent-event
stream must reach the phone event by event, so no streamed response is compressed.
"""

from __future__ import annotations

from flask_compress import Compress

SETTINGS = {
    "COMPRESS_MIMETYPES": ["text/html", "text/css", "text/javascript", "application/javascript",
                           "application/json", "application/manifest+json", "image/svg+xml"],
    # Browsers offer brotli only over HTTPS; on a plain-http LAN they get gzip.
    "COMPRESS_ALGORITHM": ["br", "gzip"],
    "COMPRESS_LEVEL": 6,
    "COMPRESS_BR_LEVEL": 4,
    "COMPRESS_MIN_SIZE": 500,
    "COMPRESS_STREAMS": False,
}


def init_app(app) -> None:
    for key, value in SETTINGS.items():
        app.config.setdefault(key, value)
    Compress(app)
