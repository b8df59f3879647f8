"""cotejo: the Python client of the Cotejo document analysis API (docs/sdk-python.md).

    from cotejo import Cotejo

    client = Cotejo()  # COTEJO_API_KEY, COTEJO_BASE_URL
    analysis = client.analyses.create("dni.jpg", expect="es_dni")
"""

from __future__ import annotations

from typing import Optional

from . import models, webhooks
from ._client import (
    DEFAULT_BASE_URL,
    VERSION,
    APIClient,
    BinaryResponse,
    RequestOptions,
    backoff,
    is_retryable,
    parse_retry_after,
)
from ._errors import (
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    CotejoError,
    InsufficientCreditsError,
    InternalServerError,
    NotFoundError,
    NotImplementedByServerError,
    PayloadTooLargeError,
    PermissionDeniedError,
    PollingTimeoutError,
    RateLimitError,
    UnprocessableEntityError,
    UnsupportedMediaTypeError,
)
from ._pagination import Page
from ._uploads import FileInput, Uploadable
from ._version import __version__
from .resources import (
    Analyses,
    BalanceResource,
    Batches,
    Classifications,
    DocumentTypes,
    Dossiers,
    Reviews,
    Templates,
    UsageResource,
    VerificationLinks,
    WebhookEndpoints,
)
from .webhooks import WebhookVerificationError


class Cotejo(APIClient):
    """The client. ``api_key`` defaults to ``COTEJO_API_KEY``, ``base_url`` to ``COTEJO_BASE_URL`` (else
    ``https://api.cotejo.eu``); ``max_retries`` (default 2) and ``timeout`` (seconds per attempt, default 60)."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        max_retries: int = 2,
        timeout: float = 60.0,
    ) -> None:
        super().__init__(api_key, base_url=base_url, max_retries=max_retries, timeout=timeout)
        self.analyses = Analyses(self)
        self.classifications = Classifications(self)
        self.batches = Batches(self)
        self.document_types = DocumentTypes(self)
        self.webhook_endpoints = WebhookEndpoints(self)
        self.verification_links = VerificationLinks(self)
        self.reviews = Reviews(self)
        self.balance = BalanceResource(self)
        self.usage = UsageResource(self)
        self.templates = Templates(self)
        self.dossiers = Dossiers(self)
        #: Verification of signed webhook deliveries (``cotejo.webhooks``).
        self.webhooks = webhooks


__all__ = [
    "Cotejo",
    "APIClient",
    "DEFAULT_BASE_URL",
    "VERSION",
    "__version__",
    "RequestOptions",
    "BinaryResponse",
    "Page",
    "FileInput",
    "Uploadable",
    "is_retryable",
    "parse_retry_after",
    "backoff",
    "models",
    "webhooks",
    "WebhookVerificationError",
    "CotejoError",
    "BadRequestError",
    "AuthenticationError",
    "InsufficientCreditsError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "PayloadTooLargeError",
    "UnsupportedMediaTypeError",
    "UnprocessableEntityError",
    "RateLimitError",
    "InternalServerError",
    "NotImplementedByServerError",
    "APIConnectionError",
    "APITimeoutError",
    "PollingTimeoutError",
    "Analyses",
    "Classifications",
    "Batches",
    "DocumentTypes",
    "WebhookEndpoints",
    "VerificationLinks",
    "Reviews",
    "BalanceResource",
    "UsageResource",
    "Templates",
    "Dossiers",
]
