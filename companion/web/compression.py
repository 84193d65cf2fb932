"""Pages, view fragments and JSON go out compressed (Flask-Compress), and so do the views
an event stream pushes (`GzipEvents`).

A table page is mostly markup that repeats, so it shrinks to a fraction; that matters on
a crowded Wi-Fi. Static files are compressed once in `assets`. Flask-Compress would hold
a streamed response back, so it compresses none (COMPRESS_STREAMS off); a stream that
pushes views compresses each event itself, and flushes it at once.
"""

from __future__ import annotations

import struct
import zlib

import brotli
from flask import Response
from flask_compress import Compress

GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # deflate, no name, no time, unknown OS
EVENT_LEVEL = 3        # on a pushed view as good as 6 within a tenth, at under half the CPU
STORED_BELOW = 256     # a keepalive or an update this short is sent as it is


def stored_block(data: bytes) -> bytes:
    """`data` (at most 65,535 bytes) as a deflate block left uncompressed; every event ends
    byte-aligned, so it starts on a byte."""
    return b"\x00" + struct.pack("<HH", len(data), len(data) ^ 0xFFFF) + data


def _deflated(data: bytes) -> bytes:
    """`data` as deflate blocks ending byte-aligned, by a compressor freed on return: one
    kept in the stream's frame between events would hold its quarter megabyte."""
    # A window no larger than the data: setting up a compressor clears its window and hash
    # table, which for a few hundred bytes cost more than compressing them.
    window = min(zlib.MAX_WBITS, max(9, (len(data) - 1).bit_length()))
    deflate = zlib.compressobj(EVENT_LEVEL, zlib.DEFLATED, -window, min(8, window - 5))
    return deflate.compress(data) + deflate.flush(zlib.Z_SYNC_FLUSH)


def _gzip_block(chunk, crc: int, size: int) -> tuple[bytes, int, int]:
    """(the chunk as deflate blocks, the running checksum and length with it).

    A chunk may be a list of text and shared parts (a pushed view, or a view's body): the
    text between parts is compressed here, each part's blocks were compressed once for every
    phone and go in as they are (they refer to nothing before them; a part is one line, so
    the same blocks serve an event and a body)."""
    if isinstance(chunk, list):
        blocks, text = [], []
        for part in chunk:
            if isinstance(part, str):
                text.append(part)
                continue
            if not part.compressed():  # (said from a recording: compressed with the text around it)
                text.append(part.text())
                continue
            if text:
                block, crc, size = _gzip_block("".join(text), crc, size)
                blocks.append(block)
                text = []
            blocks.append(part.deflated())
            crc, length = part.crc_after(crc)
            size += length
        if text:
            block, crc, size = _gzip_block("".join(text), crc, size)
            blocks.append(block)
        return b"".join(blocks), crc, size
    data = chunk.encode() if isinstance(chunk, str) else chunk
    crc, size = zlib.crc32(data, crc), size + len(data)
    return (stored_block(data) if len(data) < STORED_BELOW else _deflated(data)), crc, size


class GzipEvents:
    """One gzip stream from an event stream's chunks (`live.event_stream(encoder=...)`), each
    flushed as it comes.

    Each chunk is compressed on its own (a fresh compressor, then a sync flush), so an open
    stream keeps no compressor (a quarter megabyte each) between events: it costs only a
    running checksum and length. The gzip trailer closes a stream that ends by itself."""

    __slots__ = ("crc", "size")

    def __init__(self):
        self.crc = self.size = 0

    def opening(self) -> bytes:
        return GZIP_HEADER

    def encode(self, chunk) -> bytes:
        block, self.crc, self.size = _gzip_block(chunk, self.crc, self.size)
        return block

    def closing(self) -> bytes:
        # The last block, empty, then the checksum and length of everything sent.
        return b"\x01\x00\x00\xff\xff" + struct.pack("<II", self.crc, self.size & 0xFFFFFFFF)


def gzip_body(chunk) -> bytes:
    """A whole response body as one gzip member, from text or a list of text and shared parts
    (a rendered view): the parts go in as compressed once for every phone."""
    block, crc, size = _gzip_block(chunk, 0, 0)
    return (GZIP_HEADER + block + b"\x01\x00\x00\xff\xff"
            + struct.pack("<II", crc, size & 0xFFFFFFFF))


# A whole table page is a phone's first sight of a table (once, not at every move), and most
# of its first load: it gets brotli at 10, some 10 % smaller than at 5 (Explorers' 41.5 KB
# page 4.0 KB against 4.4 KB) for some 11 ms of CPU; 11 would save another 100 B for 45 ms of
# a worker's time at every page load.
PAGE_BR_QUALITY = 10


def whole_page(html: str, request) -> Response:
    """A page's answer, compressed here with brotli at `PAGE_BR_QUALITY` when the phone takes
    it (Flask-Compress leaves an answer with its coding alone), else by Flask-Compress."""
    response = Response(html)
    if request.accept_encodings["br"] > 0:
        response.set_data(brotli.compress(response.get_data(), quality=PAGE_BR_QUALITY))
        response.headers["Content-Encoding"] = "br"
        response.vary.add("Accept-Encoding")
    return response


def takes_gzip_only(request) -> bool:
    """Whether gzip is what this client gets (browsers offer brotli only over HTTPS, where
    Flask-Compress answers with it)."""
    return request.accept_encodings["gzip"] > 0 and not request.accept_encodings["br"] > 0


SETTINGS = {
    "COMPRESS_MIMETYPES": ["text/html", "text/css", "text/javascript", "application/javascript",
                           "application/json", "application/manifest+json", "image/svg+xml"],
    # Browsers offer brotli only over HTTPS (Chromium on localhost too); on a plain-http LAN
    # they get gzip.
    "COMPRESS_ALGORITHM": ["br", "gzip"],
    "COMPRESS_LEVEL": 6,
    # Brotli 5 against 4: a table page some 8 % smaller (Explorers 4.5 KB against 5.0 KB)
    # for some 0.15 ms more per compressed answer; 9 and up take 7 ms and more.
    "COMPRESS_BR_LEVEL": 5,
    "COMPRESS_MIN_SIZE": 500,
    "COMPRESS_STREAMS": False,
}


def init_app(app) -> None:
    for key, value in SETTINGS.items():
        app.config.setdefault(key, value)
    Compress(app)
