"""Time bounds the server cannot stretch: an HTTP transport under the openai SDK that watches the clock.

A read timeout alone bounds only the silence between two bytes, so a server that trickles a byte a second
keeps a request alive forever. This transport gives every attempt the time left (of the reply's `--timeout`
and of the run's `--deadline`, whichever ends first) as its timeouts, and checks the clock on every chunk it
passes up, so the SDK's retries, a stream and a trickle all stop when the time is up.

It also decides what must not be retried: the SDK passes an `OpenAIError` raised here through untouched, so
raising `RequestStopped` ends the request at once. That is used when the time is up (a retry against a
one-slot local server would only queue behind the reply it is still generating) and when the very first
connection is refused (nothing listens there: retrying with backoff only delays the one-line error).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx2
import openai

from studyplan.errors import DeadlineExceeded, EndpointUnreachable, ModelError, RequestTimedOut

# A connection that takes longer than this is not coming: leave the rest of the time for the reply.
CONNECT_TIMEOUT = 10.0


class RequestStopped(openai.OpenAIError):
    """Carries the studyplan error through the SDK's retry loop, which re-raises OpenAIErrors as they are."""

    def __init__(self, error: ModelError) -> None:
        super().__init__(str(error))
        self.error = error


class Clock:
    """The reply's and the run's time budgets, in monotonic seconds.

    The run's clock starts at its first request (`new_run` restarts it for the next goal of a batch).
    """

    def __init__(self, endpoint: str, timeout: float, deadline: float | None) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self.deadline = deadline
        self._run_started: float | None = None
        self._request_started = time.monotonic()

    def new_run(self) -> None:
        self._run_started = None

    def start_request(self) -> None:
        now = time.monotonic()
        self._request_started = now
        if self._run_started is None:
            self._run_started = now

    def _request_ends(self) -> float:
        return self._request_started + self.timeout

    def _run_ends(self) -> float:
        if self.deadline is None or self._run_started is None:
            return float("inf")
        return self._run_started + self.deadline

    def left(self) -> float:
        return min(self._request_ends(), self._run_ends()) - time.monotonic()

    def out_of_time(self) -> ModelError:
        """The error for whichever budget ends first, naming the flag that changes it."""
        if self._run_ends() <= self._request_ends():
            return DeadlineExceeded(
                f"The run reached its deadline of {self.deadline:g}s while waiting for {self.endpoint}; "
                "allow longer with --deadline SECONDS (or STUDYPLAN_DEADLINE)."
            )
        return RequestTimedOut(
            f"No reply from {self.endpoint} within {self.timeout:g}s; wait longer with --timeout SECONDS "
            "(or STUDYPLAN_TIMEOUT), or lower --max-tokens."
        )


class BoundedTransport(httpx2.BaseTransport):
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._inner = httpx2.HTTPTransport()
        self._connected = False

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        left = self._clock.left()
        if left <= 0:
            raise RequestStopped(self._clock.out_of_time())
        request.extensions["timeout"] = {"connect": min(left, CONNECT_TIMEOUT), "read": left, "write": left,
                                         "pool": left}
        try:
            response = self._inner.handle_request(request)
        except httpx2.ConnectError as error:
            if self._connected:
                raise  # it answered before: the SDK's retries may ride out a restart
            raise RequestStopped(
                EndpointUnreachable(
                    f"Cannot reach {self._clock.endpoint}: {connection_failure(error)}. "
                    "Check that the server is running and the base URL is right."
                )
            ) from error
        except httpx2.ConnectTimeout:
            raise  # no connection yet, so no reply to wait for: the SDK may retry
        except httpx2.TimeoutException as error:  # the read timeout is the time left: it is over
            raise RequestStopped(self._clock.out_of_time()) from error
        self._connected = True
        assert isinstance(response.stream, httpx2.SyncByteStream), "a sync transport answers with a sync stream"
        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=_BoundedStream(response.stream, self._clock),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._inner.close()


class _BoundedStream(httpx2.SyncByteStream):
    """The response body, stopped when the time is up even if bytes keep trickling in."""

    def __init__(self, inner: httpx2.SyncByteStream, clock: Clock) -> None:
        self._inner = inner
        self._clock = clock

    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self._inner:
                if self._clock.left() <= 0:
                    raise RequestStopped(self._clock.out_of_time())
                yield chunk
        except httpx2.TimeoutException as error:
            raise RequestStopped(self._clock.out_of_time()) from error

    def close(self) -> None:
        self._inner.close()


def connection_failure(error: BaseException) -> str:
    """Name the root cause of a connection error in a few words."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, socket.gaierror):
            return "the host name could not be resolved"
        cause = cause.__cause__ or cause.__context__
    text = str(error.__cause__ or error).lower()
    if "refused" in text:
        return "connection refused"
    if "name or service" in text or "nodename" in text or "getaddrinfo" in text:
        return "the host name could not be resolved"
    return "the connection failed"
