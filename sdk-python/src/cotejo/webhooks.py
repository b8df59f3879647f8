"""Verification of Cotejo's signed webhook deliveries: Standard Webhooks v1 (HMAC-SHA256), standard library only.

The same checks, in the same order, as the ``@cotejo/webhooks`` npm package (``webhooks-verifier/``)::

    event = cotejo.webhooks.verify(raw_body, request.headers, secret)

Raises ``WebhookVerificationError`` (answer 400) for a delivery to reject, ``TypeError`` for a programming error.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Mapping, Optional, Union

if TYPE_CHECKING:
    from .models import WebhookEvent

#: Why a delivery was rejected.
WebhookVerificationReason = Literal[
    "missing_header",
    "invalid_timestamp",
    "timestamp_too_old",
    "timestamp_too_new",
    "invalid_signature",
    "invalid_secret",
    "invalid_body",
]

#: The raw request body, exactly as received.
WebhookBody = Union[bytes, bytearray, memoryview, str]

DEFAULT_TOLERANCE = 300
_SECRET_PREFIX = "whsec_"
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}", re.ASCII)
_TIMESTAMP = re.compile(r"[0-9]{1,15}", re.ASCII)


class WebhookVerificationError(Exception):
    """The only error ``verify`` raises for a delivery it rejects. Answer it with a 400 (never 2xx)."""

    def __init__(self, reason: WebhookVerificationReason, message: str) -> None:
        super().__init__(message)
        #: Why the delivery was rejected, e.g. ``invalid_signature``.
        self.reason: WebhookVerificationReason = reason


def _decode_base64(text: str) -> Optional[bytes]:
    """Standard base64, padding optional; None for anything else."""
    if not _BASE64.fullmatch(text):
        return None
    unpadded = text.rstrip("=")
    if len(unpadded) % 4 == 1:
        return None
    if len(text) != len(unpadded) and len(text) % 4 != 0:
        return None
    try:
        return base64.b64decode(unpadded + "=" * (-len(unpadded) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _secret_key(secret: Any) -> bytes:
    """The HMAC key: the secret without ``whsec_``, base64-decoded."""
    if not isinstance(secret, str) or secret.strip() == "":
        raise WebhookVerificationError("invalid_secret", "The webhook secret is missing or empty.")
    encoded = secret[len(_SECRET_PREFIX) :] if secret.startswith(_SECRET_PREFIX) else secret
    key = _decode_base64(encoded)
    if not key:
        raise WebhookVerificationError(
            "invalid_secret",
            "The webhook secret is not valid: expected `whsec_` followed by base64 (copy it from the dashboard).",
        )
    return key


def _body_bytes(body: Any, fn: str) -> bytes:
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    raise TypeError(
        f"{fn}: the body must be the raw request body (bytes or str), got {type(body).__name__}. Read it before any "
        "JSON parsing, e.g. Flask's request.get_data(), Django's request.body, FastAPI's await request.body()."
    )


def _unix_seconds(value: Union[datetime, int], what: str) -> int:
    if isinstance(value, datetime):
        return int(value.timestamp())
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be a datetime or an integer number of Unix seconds.")
    return value


def _hmac_base64(key: bytes, msg_id: str, timestamp: str, body: bytes) -> str:
    mac = hmac.new(key, f"{msg_id}.{timestamp}.".encode("utf-8") + body, hashlib.sha256)
    return base64.b64encode(mac.digest()).decode("ascii")


def _header_values(headers: Any, name: str) -> list[str]:
    """All values of a header, names matched case-insensitively, from a mapping (dict, Flask/Werkzeug, Django,
    Starlette/FastAPI, http.client / email messages: anything with ``items()``) or an object with ``get``."""
    values: list[str] = []
    items = getattr(headers, "items", None)
    if callable(items):
        for key, value in items():
            if not isinstance(key, str) or key.lower() != name:
                continue
            if isinstance(value, str):
                values.append(value)
            elif isinstance(value, (list, tuple)):
                values.extend(v for v in value if isinstance(v, str))
        return values
    get = getattr(headers, "get", None)
    if callable(get):
        value = get(name)
        return [value] if isinstance(value, str) else []
    raise TypeError("verify: headers must be a mapping (request.headers) or have a get() method.")


def _required_header(headers: Any, name: str, separator: str) -> str:
    value = separator.join(_header_values(headers, name))
    if value.strip() == "":
        raise WebhookVerificationError("missing_header", f"Missing {name} header.")
    return value


def sign(secret: str, msg_id: str, timestamp: Union[datetime, int], payload: WebhookBody) -> str:
    """Signs a delivery the way Cotejo does (for tests and local tooling): the ``webhook-signature`` value
    ``v1,<base64 HMAC-SHA256>`` of ``<msg_id>.<timestamp>.<payload>``."""
    if not isinstance(msg_id, str) or msg_id == "":
        raise TypeError("sign: msg_id must be a non-empty string.")
    key = _secret_key(secret)
    seconds = _unix_seconds(timestamp, "sign: timestamp")
    return "v1," + _hmac_base64(key, msg_id, str(seconds), _body_bytes(payload, "sign"))


def verify(
    payload: WebhookBody,
    headers: Union[Mapping[str, Any], Any],
    secret: str,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    now: Union[datetime, int, None] = None,
) -> WebhookEvent:
    """Verifies a delivery and returns its event (a dict), parsed only after the signature matched.

    Checks, in order: the secret; the ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature`` headers; the
    timestamp against the clock (± ``tolerance`` seconds, inclusive); the signature over the exact body bytes (one
    matching ``v1`` entry among several suffices, compared in constant time; other versions are ignored); that the
    body is a JSON object.

    ``now`` (a datetime or Unix seconds) replaces the clock, for tests.
    """
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not tolerance >= 0 or tolerance == float("inf"):
        raise TypeError("verify: tolerance must be a non-negative number of seconds.")
    body = _body_bytes(payload, "verify")
    key = _secret_key(secret)

    msg_id = _required_header(headers, "webhook-id", ", ")
    timestamp = _required_header(headers, "webhook-timestamp", ", ")
    signatures = _required_header(headers, "webhook-signature", " ")

    if not _TIMESTAMP.fullmatch(timestamp):
        raise WebhookVerificationError("invalid_timestamp", "The webhook-timestamp header is not a Unix time in seconds.")
    sent_at = int(timestamp)
    clock = int(time.time()) if now is None else _unix_seconds(now, "verify: now")
    if sent_at < clock - tolerance:
        raise WebhookVerificationError("timestamp_too_old", f"The webhook-timestamp is more than {tolerance} s in the past.")
    if sent_at > clock + tolerance:
        raise WebhookVerificationError("timestamp_too_new", f"The webhook-timestamp is more than {tolerance} s in the future.")

    expected = _hmac_base64(key, msg_id, timestamp, body).encode("ascii")
    matched = False
    for entry in signatures.split(" "):
        version, comma, signature = entry.partition(",")
        if not comma or version != "v1":
            continue
        # No early exit: every v1 entry is compared, each in constant time.
        if hmac.compare_digest(signature.encode("utf-8"), expected):
            matched = True
    if not matched:
        raise WebhookVerificationError("invalid_signature", "No webhook-signature entry matches.")

    try:
        event = json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError):
        raise WebhookVerificationError("invalid_body", "The body is not JSON.") from None
    # Only a floor: the shape is the API's contract (the signature proves the body is Cotejo's), and `type` may take
    # values newer than this package, so it is not checked against a list.
    if not isinstance(event, dict):
        raise WebhookVerificationError("invalid_body", "The body is not a JSON object.")
    return event  # type: ignore[return-value]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


__all__ = ["verify", "sign", "WebhookVerificationError", "WebhookVerificationReason", "WebhookBody", "DEFAULT_TOLERANCE"]
