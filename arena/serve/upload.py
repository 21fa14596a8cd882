"""An upload's request body, read as hostile input: capped, streamed to a file, never held in memory.

The handler checks the token (or the session) before it calls
:func:`receive_archive`, so nothing is read for a stranger. The body is
counted as it arrives and cut off past ``cap`` (413); the multipart form is
parsed as it streams (``python-multipart``), its one file part written in
chunks to a file of its own under the competition's folder, its part headers
capped; a form field other than the expected ones is refused. The timeouts
of a slow body are the connection's (``guard``). On the team page's form
the CSRF field must come before the file, so not one byte of the archive is
stored before the token is checked.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path

import anyio
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import ClientDisconnect, Request

#: Bytes a form adds around the archive (boundaries, part headers, the CSRF field).
FORM_OVERHEAD = 64 << 10
MAX_PART_HEADERS = 8 << 10  # bytes of one part's headers
MAX_FIELD = 256  # bytes of a small field (the CSRF token)
INCOMING = ".incoming-"  # a body being received: swept at start if the server died meanwhile


class UploadRefused(Exception):
    """A body the server will not take: ``status`` and one sentence."""

    def __init__(self, status: int, sentence: str) -> None:
        super().__init__(sentence)
        self.status = status


async def receive_archive(request: Request, folder: Path, cap: int,
                          check_field: Callable[[str], bool] | None = None) -> Path:
    """The ``archive`` file of a multipart body, written to a new file in ``folder`` (the caller deletes it).

    ``check_field``: the form must carry a ``csrf`` field before the file, and this must accept its value
    (else 403). Raises UploadRefused; a partial file is removed.
    """
    kind, params = parse_options_header(request.headers.get("content-type", ""))
    boundary = params.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise UploadRefused(400, "send the archive as multipart/form-data, in the field 'archive'")
    path = folder / f"{INCOMING}{secrets.token_hex(8)}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    out = os.fdopen(fd, "wb")
    form = _Form(check_field)
    try:
        parser = MultipartParser(boundary, form.callbacks())  # type: ignore[arg-type]
        got = stored = 0
        async for chunk in request.stream():
            got += len(chunk)
            if got > cap:
                raise UploadRefused(413, f"the request body is over the limit of {cap} bytes")
            parser.write(chunk)
            if form.pending:
                data, form.pending = b"".join(form.pending), []
                stored += len(data)
                await anyio.to_thread.run_sync(out.write, data)  # disk writes off the event loop
        parser.finalize()
        if form.pending:
            data, form.pending = b"".join(form.pending), []
            stored += len(data)
            await anyio.to_thread.run_sync(out.write, data)
        if not form.archive_done:
            raise UploadRefused(400, "the form has no file in the field 'archive'")
        if not stored:  # a browser's form sent without a file chosen: an empty part
            raise UploadRefused(400, "no file was sent: choose a .tar.gz or .zip of your bot, then upload")
        await anyio.to_thread.run_sync(out.close)
        return path
    except FormParserError:
        _discard(out, path)
        raise UploadRefused(400, "the request body is not a valid multipart form") from None
    except ClientDisconnect:
        _discard(out, path)
        raise UploadRefused(400, "the upload was cut off before its end") from None
    except BaseException:
        _discard(out, path)
        raise


def _discard(out: object, path: Path) -> None:
    try:
        out.close()  # type: ignore[attr-defined]
    finally:
        path.unlink(missing_ok=True)


class _Form:
    """The multipart callbacks: which part is streaming, its capped headers, the small field, the file."""

    def __init__(self, check_field: Callable[[str], bool] | None) -> None:
        self.check_field = check_field
        self.headers = 0
        self.name, self.value = bytearray(), bytearray()
        self.disposition = b""
        self.part: str | None = None  # "archive", "csrf" or None between parts
        self.field = bytearray()
        self.csrf_ok = check_field is None
        self.archive_seen = self.archive_done = False
        self.pending: list[bytes] = []

    def callbacks(self) -> dict[str, Callable[..., None]]:
        return {"on_part_begin": self.begin, "on_header_field": self.header_name,
                "on_header_value": self.header_value, "on_header_end": self.header_end,
                "on_headers_finished": self.headers_finished, "on_part_data": self.data, "on_part_end": self.end}

    def begin(self) -> None:
        self.headers = 0
        self.name, self.value = bytearray(), bytearray()
        self.disposition = b""
        self.field.clear()

    def _count(self, n: int) -> None:
        self.headers += n
        if self.headers > MAX_PART_HEADERS:
            raise UploadRefused(400, f"a part of the form has more than {MAX_PART_HEADERS} bytes of headers")

    def header_name(self, data: bytes, start: int, end: int) -> None:
        self._count(end - start)
        self.name += data[start:end]

    def header_value(self, data: bytes, start: int, end: int) -> None:
        self._count(end - start)
        self.value += data[start:end]

    def header_end(self) -> None:
        if self.name.lower() == b"content-disposition":
            self.disposition = bytes(self.value)
        self.name, self.value = bytearray(), bytearray()

    def headers_finished(self) -> None:
        _, options = parse_options_header(self.disposition)
        name = options.get(b"name", b"")
        if name == b"archive" and b"filename" in options:
            if self.archive_seen:
                raise UploadRefused(400, "the form has more than one file")
            if not self.csrf_ok:
                raise UploadRefused(403, "the form's CSRF token does not match the session")
            self.archive_seen, self.part = True, "archive"
        elif name == b"csrf" and self.check_field is not None and b"filename" not in options:
            self.part = "csrf"
        else:
            shown = name.decode("utf-8", "backslashreplace")[:40]
            raise UploadRefused(400, f"the form has a field {shown!r} this server does not take")

    def data(self, data: bytes, start: int, end: int) -> None:
        if self.part == "archive":
            self.pending.append(data[start:end])
        else:
            self.field += data[start:end]
            if len(self.field) > MAX_FIELD:
                raise UploadRefused(400, f"the form's field {self.part!r} is over {MAX_FIELD} bytes")

    def end(self) -> None:
        if self.part == "archive":
            self.archive_done = True
        elif self.part == "csrf" and self.check_field is not None:
            self.csrf_ok = self.check_field(self.field.decode("utf-8", "replace"))
            if not self.csrf_ok:
                raise UploadRefused(403, "the form's CSRF token does not match the session")
        self.part = None
