"""The one check at the door: every request's text and numbers, before any route reads them.

The address, the query string and numbers in the address are checked before routing's
view runs; form fields and JSON bodies when they are parsed, which is the only way a
route can read them. Whatever the rules of `companion.inbound` refuse is answered 400
with a message ({"error": ...} under /api/) and nothing is changed.
"""

from __future__ import annotations

from flask import Request, request
from werkzeug.exceptions import HTTPException
from werkzeug.formparser import FormDataParser

from ..inbound import Refused, check_number, check_text, form_pairs, loads_json
from .errors import _message
from ..games.words import t


class _StrictFormParser(FormDataParser):
    def _parse_urlencoded(self, stream, mimetype, content_length, options):
        pairs = form_pairs(stream.read(), t("The form"))
        return stream, self.cls(pairs), self.cls()


class _ReadGuard:
    """The server's input stream; a body the server cannot read (a broken chunked
    encoding, a connection cut mid-body) is the client's fault, not a server error."""

    def __init__(self, raw):
        self._raw = raw

    def _guarded(self, method, *args):
        try:
            return method(*args)
        except HTTPException:
            raise
        except Exception:
            raise Refused(t("The request body was cut off or malformed; nothing was changed.")) from None

    def __getattr__(self, name):
        # read, readline, readinto (where the server's stream has it), readlines.
        attr = getattr(self._raw, name)
        if name.startswith("read") and callable(attr):
            return lambda *args: self._guarded(attr, *args)
        return attr

    def __iter__(self):
        return iter(self.readline, b"")


class _CheckedJSON:
    loads = staticmethod(loads_json)


class CheckedRequest(Request):
    """Mixed in before the app's own request class (htmx-flask's), in `init_app`."""

    form_data_parser_class = _StrictFormParser

    # Flask hands each request the app's JSON provider here; a request body is read with the
    # checked reader instead, while the app's JSON (the session cookie's, say) stays as it is.
    @property
    def json_module(self):
        return _CheckedJSON

    @json_module.setter
    def json_module(self, _provider):
        pass

    def __init__(self, environ, *args, **kwargs):
        if "wsgi.input" in environ and not isinstance(environ["wsgi.input"], _ReadGuard):
            environ["wsgi.input"] = _ReadGuard(environ["wsgi.input"])
        super().__init__(environ, *args, **kwargs)

    def _load_form_data(self) -> None:
        if "form" in self.__dict__:
            return
        super()._load_form_data()
        try:
            for name, value in self.form.items(multi=True):
                check_text(name, t("A form field's name"))
                check_text(value, t("The form field {name}", name=repr(name)))
            for name, upload in self.files.items(multi=True):
                check_text(name, t("A form field's name"))
                check_text(upload.filename or "", t("The file's name"))
        except Refused:
            # A later look at the form must not find the refused values either.
            self.__dict__["form"] = self.parameter_storage_class()
            self.__dict__["files"] = self.parameter_storage_class()
            raise


# The numbers routes take in their address, each named as a whole phrase.
ADDRESS_NUMBERS = {
    "seat": t("The seat in the address"),
    "campaign_id": t("The campaign id in the address"),
    "played_id": t("The played id in the address"),
}


def check_address_and_query():
    check_text(request.path, t("The address"))
    for name, value in form_pairs(request.query_string, t("The query string")):
        check_text(name, t("A query parameter's name"))
        check_text(value, t("The query parameter {name}", name=repr(name)))
    for name, value in (request.view_args or {}).items():
        if isinstance(value, int):
            check_number(value, ADDRESS_NUMBERS.get(name) or t("The number {name} in the address", name=name))


def init_app(app) -> None:
    app.request_class = type("CheckedRequest", (CheckedRequest, app.request_class), {})
    # First of all hooks: none of the others may read a value this check refuses.
    app.before_request_funcs.setdefault(None, []).insert(0, check_address_and_query)
    app.register_error_handler(Refused, lambda exc: _message(400, exc.message))
