"""The HTTP core: authentication, retries with back-off, idempotency keys, errors. Standard library only."""

from __future__ import annotations

import email.utils
import http.client
import json
import os
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any, Mapping, Optional, TypedDict, Union

from ._errors import APIConnectionError, APITimeoutError, CotejoError
from ._version import __version__

DEFAULT_BASE_URL = "https://api.cotejo.eu"
VERSION = __version__

_RETRY_BASE = 0.5
_RETRY_MAX = 8.0


class RequestOptions(TypedDict, total=False):
    """Per-request options: the ``request_options`` argument of every method."""

    #: ``Idempotency-Key`` of a POST. Default: ``cotejo-sdk-<uuid>``, the same for every retry of the call.
    idempotency_key: str
    #: Retries after the first attempt (default: the client's).
    max_retries: int
    #: Time-out of each attempt in seconds (default: the client's).
    timeout: float
    #: Extra headers.
    headers: Mapping[str, str]


def is_retryable(status: int, code: Optional[str]) -> bool:
    """Retry guidance of the specification: 429, 409 ``idempotency_in_progress``, 408, 500, 502, 503, 504."""
    if status == 409:
        return code == "idempotency_in_progress"
    return status in (408, 429, 500, 502, 503, 504)


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """``Retry-After`` in seconds (given as seconds or as an HTTP date), or None."""
    if value is None or value.strip() == "":
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = None
    if seconds is not None:
        return max(0.0, seconds) if seconds == seconds and seconds != float("inf") else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff(retry: int) -> float:
    """Jittered exponential back-off in seconds: 0.5, 1, 2... at most 8, each reduced by up to 25 %."""
    delay = min(_RETRY_BASE * 2**retry, _RETRY_MAX)
    return delay * (1 - random.random() * 0.25)


QueryValue = Union[str, int, float, bool, None, Mapping[str, Any], "list[Any]", "tuple[Any, ...]"]


def _query_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass
class Multipart:
    """A multipart/form-data body, encoded once (bytes can be sent again on every retry)."""

    body: bytes
    content_type: str


@dataclass
class BinaryResponse:
    """A binary answer (an export, the original file): its bytes and headers."""

    status: int
    headers: Mapping[str, str]
    content: bytes

    @property
    def content_type(self) -> Optional[str]:
        return self.headers.get("content-type")

    def text(self, encoding: str = "utf-8") -> str:
        return self.content.decode(encoding)

    def write_to(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the bytes to a file."""
        with open(path, "wb") as f:
            f.write(self.content)


class _Answer:
    """One HTTP answer, whatever its status."""

    def __init__(self, status: int, headers: Any, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body


def _env(name: str) -> Optional[str]:
    value = os.environ.get(name)
    return None if value is None or value == "" else value


class APIClient:
    """Authentication, retries and errors; the resources (``Cotejo``) build on it."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        max_retries: int = 2,
        timeout: float = 60.0,
    ) -> None:
        key = api_key if api_key is not None else _env("COTEJO_API_KEY")
        if not key:
            raise CotejoError(
                "Missing API key: pass `api_key` to `Cotejo(api_key=...)` or set the COTEJO_API_KEY environment variable."
            )
        #: The secret key (``ck_test_...`` or ``ck_live_...``).
        self.api_key = key
        #: Default: ``COTEJO_BASE_URL``, else ``https://api.cotejo.eu``.
        self.base_url = (base_url or _env("COTEJO_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        #: Retries after the first attempt for retryable failures (``is_retryable``).
        self.max_retries = max_retries
        #: Time-out of each attempt, in seconds.
        self.timeout = timeout

    # Overridable (tests): the waits between retries and between polls.
    def _sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def build_url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        pairs: list[tuple[str, str]] = []
        for key, value in (query or {}).items():
            if value is None:
                continue
            if isinstance(value, (list, tuple)):
                pairs.extend((key, _query_text(v)) for v in value)
            elif isinstance(value, Mapping):
                pairs.extend((f"{key}[{k}]", _query_text(v)) for k, v in value.items())
            else:
                pairs.append((key, _query_text(value)))
        url = self.base_url + path
        return url + ("?" + urllib.parse.urlencode(pairs) if pairs else "")

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        json_body: Any = None,
        multipart: Optional[Multipart] = None,
        auth: bool = True,
        raw: bool = False,
        options: Optional[RequestOptions] = None,
    ) -> Any:
        """Sends a request with retries; returns the parsed JSON (or a ``BinaryResponse`` when ``raw``)."""
        opts: RequestOptions = options or {}
        max_retries = opts.get("max_retries", self.max_retries)
        timeout = opts.get("timeout", self.timeout)
        idempotency_key = (opts.get("idempotency_key") or f"cotejo-sdk-{uuid.uuid4()}") if method == "POST" else None
        url = self.build_url(path, query)

        body: Optional[bytes] = None
        headers: dict[str, str] = {
            "Accept": "*/*" if raw else "application/json",
            "User-Agent": f"cotejo-python/{__version__}",
        }
        if auth:
            headers["Authorization"] = f"Bearer {self.api_key}"
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        if multipart is not None:
            body = multipart.body
            headers["Content-Type"] = multipart.content_type
        elif json_body is not None:
            body = json.dumps(json_body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            headers["Content-Type"] = "application/json"
        headers.update(opts.get("headers") or {})

        attempt = 0
        while True:
            retries_left = max_retries - attempt
            try:
                answer = self._send(method, url, headers, body, timeout)
            except APIConnectionError as err:
                if retries_left > 0:
                    self._sleep(backoff(attempt))
                    attempt += 1
                    continue
                if attempt > 0:
                    err.args = (f"{err.args[0].rstrip('.')} (retried {attempt} {'time' if attempt == 1 else 'times'}).",)
                    err.message = err.args[0]
                raise

            if 200 <= answer.status < 300:
                if raw:
                    return BinaryResponse(answer.status, answer.headers, answer.body)
                text = answer.body.decode("utf-8")
                return None if text == "" else json.loads(text)

            error = CotejoError.from_response(answer.status, _parse_body(answer.body), answer.headers)
            if retries_left > 0 and is_retryable(answer.status, error.code):
                retry_after = parse_retry_after(answer.headers.get("retry-after"))
                self._sleep(retry_after if retry_after is not None else backoff(attempt))
                attempt += 1
                continue
            raise error

    def _send(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes], timeout: float) -> _Answer:
        """One attempt. A failure without an HTTP answer becomes an ``APIConnectionError`` (or ``APITimeoutError``)."""
        req = urllib.request.Request(url, data=body, headers=dict(headers), method=method)
        request = f"{method} {url}"
        try:
            with urllib.request.urlopen(req, timeout=timeout) as res:
                return _Answer(res.status, res.headers, res.read())
        except urllib.error.HTTPError as err:
            with err:
                return _Answer(err.code, err.headers, err.read())
        except (socket.timeout, TimeoutError) as err:
            raise APITimeoutError(f"Request timed out after {timeout} s: {request}.", method=method, url=url) from err
        except urllib.error.URLError as err:
            if isinstance(err.reason, (socket.timeout, TimeoutError)):
                raise APITimeoutError(f"Request timed out after {timeout} s: {request}.", method=method, url=url) from err
            raise APIConnectionError(
                f"Connection error: {request} failed: {_describe(err.reason)}. Check the base URL (base_url or "
                "COTEJO_BASE_URL) and that the server is reachable.",
                method=method,
                url=url,
            ) from err
        except (OSError, ValueError, http.client.HTTPException) as err:  # a reset connection, a malformed answer
            raise APIConnectionError(
                f"Connection error: {request} failed: {_describe(err)}. Check the base URL (base_url or COTEJO_BASE_URL) "
                "and that the server is reachable.",
                method=method,
                url=url,
            ) from err


def _describe(reason: Any) -> str:
    """The cause of a failed request in one line, e.g. ``[Errno 111] Connection refused``."""
    if isinstance(reason, BaseException):
        text = str(reason)
        return text if text else type(reason).__name__
    return str(reason)


def _parse_body(body: bytes) -> Any:
    text = body.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        return text
