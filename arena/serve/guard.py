"""The server's connections against slow and oversized clients.

``guarded_protocol``: uvicorn's h11 protocol with read timeouts it lacks. A
request's headers must arrive within ``header_s`` of the connection (or of
the previous answer on a kept-alive one), a request body may pause at most
``body_idle_s`` and must arrive whole within ``body_s``; past one, the
connection is closed. A slowloris client (a header byte every few seconds)
holds a connection for ``header_s``, not for ever. Header size is h11's cap
(16 KiB).

``BodyCap``: every request's declared body size is judged before the app
runs: an upload path may carry the archive limit plus the form's overhead,
any other path 64 KiB; more is a 413, a body of unknown length on a path
that is not an upload a 411, both answered without reading the body.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("arena.serve")

#: A body on a path that takes no upload (the login form): at most this.
SMALL_BODY = 64 << 10

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class Timeouts:
    header_s: float = 10.0
    body_idle_s: float = 30.0
    body_s: float = 600.0


def guarded_protocol(timeouts: Timeouts) -> type[H11Protocol]:
    """An ``H11Protocol`` class with ``timeouts`` (give it to uvicorn as ``http=``)."""

    class Guarded(H11Protocol):
        _timer: asyncio.TimerHandle | None = None
        _body_deadline: float | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm(timeouts.header_s, "its headers")

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._follow()

        def _follow(self) -> None:
            """Set the timer for what the connection waits for now: headers, the body, or nothing (the app
            is answering)."""
            state = self.conn.their_state
            if state is h11.IDLE:
                self._body_deadline = None
                if self._timer is None:  # not re-armed by each byte: the headers have header_s in all
                    self._arm(timeouts.header_s, "its headers")
            elif state is h11.SEND_BODY:
                now = self.loop.time()
                if self._body_deadline is None:
                    self._body_deadline = now + timeouts.body_s
                self._arm(min(timeouts.body_idle_s, self._body_deadline - now), "its body")
            else:
                self._disarm()

        def _arm(self, delay: float, what: str) -> None:
            self._disarm()
            self._timer = self.loop.call_later(max(delay, 0.0), self._expired, what)

        def _disarm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _expired(self, what: str) -> None:
            self._timer = None
            if not self.transport.is_closing():
                log.info("closed a connection from %s that did not send %s in time", self.client, what)
                self.transport.close()

    return Guarded


class BodyCap:
    """ASGI middleware: a request whose body is larger than its path allows (or of unknown length where
    only a small body is taken) is answered 413/411 before the app reads a byte."""

    def __init__(self, app: ASGIApp, upload_paths: frozenset[str], upload_cap: int,
                 page: Callable[[Scope, int, str], str | None] | None = None) -> None:
        self.app, self.upload_paths, self.upload_cap = app, upload_paths, upload_cap
        self.page = page  # the refusal as a page for a browser (None: JSON)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        length = headers.get(b"content-length")
        upload = scope.get("path") in self.upload_paths
        cap = self.upload_cap if upload else SMALL_BODY
        chunked = b"chunked" in headers.get(b"transfer-encoding", b"").lower()
        if length is not None:
            try:
                n = int(length)
            except ValueError:
                n = cap + 1
            if n > cap:
                sentence = f"the request body is {n} bytes, over the limit of {cap} for this path"
                await refuse(send, 413, sentence, self.page(scope, 413, sentence) if self.page else None)
                return
        elif chunked and not upload:
            await refuse(send, 411, "give the body's Content-Length")
            return
        await self.app(scope, receive, send)


async def refuse(send: Send, status: int, sentence: str, page: str | None = None) -> None:
    """Answer ``{"detail": sentence}`` (or the refusal's ``page``, for a browser) and close the connection
    (its body is never read)."""
    import json

    body = json.dumps({"detail": sentence}).encode() if page is None else page.encode()
    kind = b"application/json" if page is None else b"text/html; charset=utf-8"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
