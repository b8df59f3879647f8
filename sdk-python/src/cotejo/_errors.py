"""The errors the SDK raises, one class per HTTP status (the same classes as the TypeScript SDK)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional

if TYPE_CHECKING:
    from .models import ErrorObject


class CotejoError(Exception):
    """Base class of every error the SDK raises for a request.

    Logic should rely on ``code`` (stable), not on the message.
    """

    #: HTTP status; None for connection errors and time-outs.
    status: Optional[int]
    #: ``error.code`` of the envelope, e.g. ``resource_missing``.
    code: Optional[str]
    #: ``error.type`` of the envelope, e.g. ``invalid_request``.
    type: Optional[str]
    #: ``error.param``: the parameter or header involved, e.g. ``options.expect``.
    param: Optional[str]
    #: ``error.request_id``, else the ``X-Request-Id`` header.
    request_id: Optional[str]
    #: The response headers (case-insensitive ``get``); None for connection errors.
    headers: Optional[Mapping[str, str]]
    #: The envelope's ``error`` object, when the body was one.
    error: Optional[ErrorObject]
    #: The response body: the parsed JSON, or the text when it was not JSON.
    body: Any

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        error: Optional[ErrorObject] = None,
        headers: Optional[Mapping[str, str]] = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.error = error
        self.body = body
        self.code = error.get("code") if error else None
        self.type = error.get("type") if error else None
        self.param = error.get("param") if error else None
        self.headers = headers
        request_id = error.get("request_id") if error else None
        if request_id is None and headers is not None:
            request_id = headers.get("x-request-id")
        self.request_id = request_id

    @classmethod
    def from_response(cls, status: int, body: Any, headers: Mapping[str, str]) -> "CotejoError":
        """The subclass matching an HTTP error response."""
        error = body["error"] if _is_envelope(body) else None
        if error is not None:
            message = f"{status} {error['code']}: {error.get('message', '')}"
        else:
            text = body if isinstance(body, str) and body != "" else "status code (no body)"
            message = f"{status} {text[:500]}"
        return error_class_for(status)(message, status=status, error=error, headers=headers, body=body)


def _is_envelope(body: Any) -> bool:
    return isinstance(body, dict) and isinstance(body.get("error"), dict) and isinstance(body["error"].get("code"), str)


class BadRequestError(CotejoError):
    """400."""


class AuthenticationError(CotejoError):
    """401."""


class InsufficientCreditsError(CotejoError):
    """402."""


class PermissionDeniedError(CotejoError):
    """403."""


class NotFoundError(CotejoError):
    """404."""


class ConflictError(CotejoError):
    """409."""


class PayloadTooLargeError(CotejoError):
    """413."""


class UnsupportedMediaTypeError(CotejoError):
    """415."""


class UnprocessableEntityError(CotejoError):
    """422."""


class RateLimitError(CotejoError):
    """429."""


class InternalServerError(CotejoError):
    """500 and the other 5xx except 501."""


class NotImplementedByServerError(CotejoError):
    """501 ``not_implemented``: the operation is not available yet. Not retried.

    (Python's built-in ``NotImplementedError`` is a programming error, hence the longer name; ``cotejo.NotImplementedError``
    is not defined so that it never shadows the built-in.)
    """


class APIConnectionError(CotejoError):
    """The request never got an HTTP response: DNS failure, refused or reset connection, TLS failure.

    The message names the request (``GET https://api.cotejo.eu/v1/balance``) and the cause; ``__cause__`` holds the
    original exception.
    """

    def __init__(self, message: str = "Connection error.", *, method: Optional[str] = None, url: Optional[str] = None) -> None:
        super().__init__(message)
        #: The method of the request that failed, e.g. ``POST``.
        self.method = method
        #: The full URL the request was sent to.
        self.url = url


class APITimeoutError(APIConnectionError):
    """An attempt took longer than ``timeout``."""


class PollingTimeoutError(CotejoError):
    """``create_and_poll`` or ``poll`` gave up after ``max_wait`` seconds; the object may still finish later."""


_BY_STATUS: dict[int, type[CotejoError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    402: InsufficientCreditsError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    501: NotImplementedByServerError,
}


def error_class_for(status: int) -> type[CotejoError]:
    """The error class of an HTTP status."""
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return InternalServerError if status >= 500 else CotejoError
