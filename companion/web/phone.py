"""What this phone holds: seat tokens and host tokens, kept in the signed session cookie."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

from flask import current_app, request, session
from flask.sessions import SecureCookieSessionInterface

from .. import tables
from ..db import get_db

MAX_TABLES_REMEMBERED = 20


def _bucket(key: str) -> dict:
    value = session.get(key)
    return value if isinstance(value, dict) else {}


def tokens(code: str) -> list[str]:
    value = _bucket("seats").get(code)
    return [t for t in value if isinstance(t, str)] if isinstance(value, list) else []


def add_token(code: str, token: str) -> None:
    seats = _bucket("seats")
    held = [t for t in seats.get(code, []) if isinstance(t, str)] if isinstance(seats.get(code), list) else []
    held.append(token)
    seats[code] = held[-12:]
    if len(seats) > MAX_TABLES_REMEMBERED:
        for old in list(seats)[:-MAX_TABLES_REMEMBERED]:
            seats.pop(old, None)
    session["seats"] = seats
    session.permanent = True


def host_token(code: str):
    return _bucket("host").get(code)


def set_host_token(code: str, token: str) -> None:
    hosts = _bucket("host")
    hosts[code] = token
    if len(hosts) > MAX_TABLES_REMEMBERED:
        for old in list(hosts)[:-MAX_TABLES_REMEMBERED]:
            hosts.pop(old, None)
    session["host"] = hosts
    session.permanent = True


class SessionInterface(SecureCookieSessionInterface):
    """The seat cookie is renewed on page loads, not with every live update.

    A permanent session is re-signed and re-sent with every response by default; a
    phone fetches its view after every move at the table, and those few hundred bytes
    and the signing would come with each. A page load (or a change) still renews it.
    """

    def get_cookie_secure(self, app) -> bool:
        # Over HTTPS (directly, or through a trusted proxy: ProxyFix) the cookie never
        # travels over plain http again.
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure

    def should_set_cookie(self, app, session) -> bool:
        if session.modified:
            return True
        if request.headers.get("HX-Request") or request.path.endswith("/events"):
            return False
        return super().should_set_cookie(app, session)


def held_seats(table) -> list[int]:
    return tables.seats_held(get_db(), table, tokens(table.code))


def lan_address() -> str | None:
    """This machine's address on the local network, for phones that cannot use localhost."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        for info in infos:
            address = info[4][0]
            if not address.startswith("127."):
                return address
    except OSError:
        pass
    try:
        # connect() on UDP sends nothing; it only asks the kernel which interface it would use.
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            probe.connect(("192.0.2.1", 9))
            address = probe.getsockname()[0]
        finally:
            probe.close()
        return None if address.startswith("127.") or address == "0.0.0.0" else address
    except OSError:
        return None


def public_base_url() -> str:
    """The address other phones must use: configured, else this host, never localhost."""
    configured = current_app.config.get("PUBLIC_URL")
    if configured:
        return configured.rstrip("/")
    parts = urlsplit(request.host_url)
    host = parts.hostname or ""
    if host in ("localhost", "127.0.0.1", "::1") or host.startswith("127."):
        lan = current_app.config.get("LAN_ADDRESS") or lan_address()
        if lan:
            port = f":{parts.port}" if parts.port else ""
            return f"{parts.scheme}://{lan}{port}"
    return request.host_url.rstrip("/")
