"""The API's resources, method for method as in the TypeScript SDK (``sdk/src/resources.ts``).

Every method takes a last keyword argument ``request_options`` (``RequestOptions``: ``idempotency_key``,
``max_retries``, ``timeout``, ``headers``). Names that are Python keywords take a trailing underscore (``async_=True``,
``from_="2025-03-01"``); the SDK sends them without it.
"""

from __future__ import annotations

import keyword
import time
import urllib.parse
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional, Sequence, TypeVar, Union

from ._client import APIClient, BinaryResponse, RequestOptions
from ._errors import PollingTimeoutError
from ._pagination import Page
from ._uploads import FileInput, Uploadable, encode_multipart, is_remote, options_json, read_upload

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .models import (
        Analysis,
        AnalyzeOptions,
        Balance,
        Batch,
        BatchItem,
        Classification,
        CreateDossierRequest,
        CreateTemplateRequest,
        CreateVerificationLinkRequest,
        DeletedAnalysis,
        DeletedDossier,
        DeletedTemplate,
        DeletedWebhookEndpoint,
        DocumentType,
        Dossier,
        Template,
        UpdateTemplateRequest,
        Usage,
        VerificationLink,
        WebhookEndpoint,
        WebhookEndpointWithSecret,
        WebhookEventType,
    )

T = TypeVar("T")


def _enc(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def _unescape(params: Mapping[str, Any]) -> dict[str, Any]:
    """``async_`` -> ``async``, ``from_`` -> ``from``: keyword arguments named after Python keywords."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        if key.endswith("_") and keyword.iskeyword(key[:-1]):
            key = key[:-1]
        out[key] = value
    return out


def _by_id(item: Mapping[str, Any]) -> str:
    return item["id"]


def _finished(item: Mapping[str, Any]) -> bool:
    return item.get("status") in ("completed", "failed")


class _Resource:
    def __init__(self, client: APIClient) -> None:
        self._client = client

    def _paginate(
        self,
        path: str,
        query: Mapping[str, Any],
        options: Optional[RequestOptions],
        cursor_of: Callable[[Any], str] = _by_id,
        auth: bool = True,
    ) -> Page[Any]:
        rest = {k: v for k, v in query.items() if k != "starting_after"}

        def fetch(cursor: Optional[str]) -> Mapping[str, Any]:
            return self._client.request("GET", path, query={**rest, "starting_after": cursor}, auth=auth, options=options)

        return Page(fetch(query.get("starting_after")), fetch, cursor_of)

    def _poll(
        self,
        first: T,
        done: Callable[[T], bool],
        next_value: Callable[[], T],
        poll_interval: float,
        max_wait: Optional[float],
    ) -> T:
        deadline = None if max_wait is None else time.monotonic() + max_wait
        value = first
        while not done(value):
            if deadline is not None and time.monotonic() + poll_interval > deadline:
                raise PollingTimeoutError(f"Polling gave up after {max_wait} s.")
            self._client._sleep(poll_interval)
            value = next_value()
        return value


def _document_body(
    file: Optional[FileInput],
    filename: Optional[str],
    file_url: Optional[str],
    file_base64: Optional[str],
    options: Mapping[str, Any],
    extra: Optional[Mapping[str, Optional[str]]] = None,
) -> dict[str, Any]:
    """The body of analyze / classify / add-document: multipart for a local file, JSON for a URL or base64."""
    extra = extra or {}
    if file is None or is_remote(file):
        remote: Mapping[str, str] = file if file is not None else {}  # type: ignore[assignment]
        body: dict[str, Any] = {
            "file_url": file_url if file_url is not None else remote.get("url"),
            "file_base64": file_base64 if file_base64 is not None else remote.get("base64"),
            "filename": filename,
            **extra,
        }
        body = {k: v for k, v in body.items() if v is not None}
        if options:
            body["options"] = dict(options)
        return {"json_body": body}
    data, name = read_upload(file, filename)  # type: ignore[arg-type]
    fields = {**extra, "options": options_json(options) if options else None}
    return {"multipart": encode_multipart([("file", data, name)], fields)}


def _merge_options(options: Optional[Mapping[str, Any]], kwargs: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(options or {})
    merged.update(_unescape(kwargs))
    return merged


class Analyses(_Resource):
    def create(
        self,
        file: Optional[FileInput] = None,
        *,
        filename: Optional[str] = None,
        file_url: Optional[str] = None,
        file_base64: Optional[str] = None,
        options: Optional[AnalyzeOptions] = None,
        request_options: Optional[RequestOptions] = None,
        **kwargs: Any,
    ) -> Analysis:
        """POST /v1/analyze (``createAnalysis``). Check ``status`` before reading ``verdict`` or ``fields``.

        ``file``: a path, bytes, a binary file object, ``{"url": ...}`` or ``{"base64": ...}``. The analyze options
        (``AnalyzeOptions``) go as keyword arguments (``expect="es_dni"``, ``checks={...}``, ``async_=True``) or as
        ``options``. ``filename`` is sent with the file (in test mode it selects the simulated reading).
        """
        body = _document_body(file, filename, file_url, file_base64, _merge_options(options, kwargs))
        return self._client.request("POST", "/v1/analyze", options=request_options, **body)

    def create_and_poll(
        self,
        file: Optional[FileInput] = None,
        *,
        poll_interval: float = 1.0,
        max_wait: Optional[float] = None,
        request_options: Optional[RequestOptions] = None,
        **kwargs: Any,
    ) -> Analysis:
        """Creates an analysis (pass ``async_=True`` for long documents) and polls it until ``completed`` or ``failed``.

        ``poll_interval`` and ``max_wait`` are in seconds; past ``max_wait`` a ``PollingTimeoutError`` is raised.
        """
        created = self.create(file, request_options=request_options, **kwargs)
        return self._poll(
            created, _finished, lambda: self.retrieve(created["id"], request_options=request_options), poll_interval, max_wait
        )

    def retrieve(self, id: str, *, request_options: Optional[RequestOptions] = None) -> Analysis:
        """GET /v1/analyses/{id} (``getAnalysis``)."""
        return self._client.request("GET", f"/v1/analyses/{_enc(id)}", options=request_options)

    def list(
        self,
        *,
        limit: Optional[int] = None,
        starting_after: Optional[str] = None,
        status: Optional[str] = None,
        type: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Page[Analysis]:
        """GET /v1/analyses (``listAnalyses``): the first page; iterate it for every analysis.

        ``metadata={"key": "value"}`` keeps the analyses whose metadata has those values (``metadata[key]=value``).
        """
        query = {"limit": limit, "starting_after": starting_after, "status": status, "type": type, "metadata": metadata}
        return self._paginate("/v1/analyses", query, request_options)

    def delete(self, id: str, *, request_options: Optional[RequestOptions] = None) -> DeletedAnalysis:
        """DELETE /v1/analyses/{id} (``deleteAnalysis``)."""
        return self._client.request("DELETE", f"/v1/analyses/{_enc(id)}", options=request_options)

    def export(
        self, id: str, *, format: Optional[str] = None, request_options: Optional[RequestOptions] = None
    ) -> BinaryResponse:
        """GET /v1/analyses/{id}/export (``exportAnalysis``): the file (``content``, ``headers``, ``text()``)."""
        return self._client.request(
            "GET", f"/v1/analyses/{_enc(id)}/export", query={"format": format}, raw=True, options=request_options
        )

    def file(self, id: str, *, request_options: Optional[RequestOptions] = None) -> BinaryResponse:
        """GET /v1/analyses/{id}/file (``getAnalysisFile``): the original file."""
        return self._client.request("GET", f"/v1/analyses/{_enc(id)}/file", raw=True, options=request_options)

    def review(
        self,
        id: str,
        *,
        decision: str,
        reason: Optional[str] = None,
        note: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Analysis:
        """POST /v1/analyses/{id}/review (``reviewAnalysis``): decides a pending human review (``approve`` or ``reject``).

        Repeating the same decision answers again; a different one is a ``ConflictError`` with code ``already_reviewed``.
        """
        body = {k: v for k, v in {"decision": decision, "reason": reason, "note": note}.items() if v is not None}
        return self._client.request("POST", f"/v1/analyses/{_enc(id)}/review", json_body=body, options=request_options)


class Classifications(_Resource):
    def create(
        self,
        file: Optional[FileInput] = None,
        *,
        filename: Optional[str] = None,
        file_url: Optional[str] = None,
        file_base64: Optional[str] = None,
        options: Optional[AnalyzeOptions] = None,
        request_options: Optional[RequestOptions] = None,
        **kwargs: Any,
    ) -> Classification:
        """POST /v1/classify (``createClassification``); the same inputs as ``analyses.create``."""
        body = _document_body(file, filename, file_url, file_base64, _merge_options(options, kwargs))
        return self._client.request("POST", "/v1/classify", options=request_options, **body)

    def retrieve(self, id: str, *, request_options: Optional[RequestOptions] = None) -> Classification:
        """GET /v1/classifications/{id} (``getClassification``)."""
        return self._client.request("GET", f"/v1/classifications/{_enc(id)}", options=request_options)


#: One file of ``batches.create(files=...)``: an upload, ``(upload, filename)``, or ``{"file": ..., "filename": ...}``.
BatchFile = Union[Uploadable, "tuple[Any, ...]", Mapping[str, Any]]


class Batches(_Resource):
    def create(
        self,
        files: Optional[Sequence[BatchFile]] = None,
        *,
        items: Optional[Sequence[BatchItem]] = None,
        options: Optional[AnalyzeOptions] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Batch:
        """POST /v1/batches (``createBatch``), always asynchronous (202): local ``files`` (multipart ``files[]``) or
        JSON ``items`` (``file_url`` / ``file_base64`` each), plus common ``options``."""
        if (files is None) == (items is None):
            raise TypeError("batches.create: pass either `files` or `items`.")
        if items is not None:
            body: dict[str, Any] = {"items": list(items)}
            if options is not None:
                body["options"] = dict(options)
            return self._client.request("POST", "/v1/batches", json_body=body, options=request_options)
        parts = []
        for f in files or []:
            if isinstance(f, tuple):
                data, name = read_upload(f[0], f[1] if len(f) > 1 else None)
            elif isinstance(f, Mapping):
                data, name = read_upload(f["file"], f.get("filename"))
            else:
                data, name = read_upload(f)
            parts.append(("files[]", data, name))
        multipart = encode_multipart(parts, {"options": options_json(options) if options is not None else None})
        return self._client.request("POST", "/v1/batches", multipart=multipart, options=request_options)

    def retrieve(self, id: str, *, request_options: Optional[RequestOptions] = None) -> Batch:
        """GET /v1/batches/{id} (``getBatch``)."""
        return self._client.request("GET", f"/v1/batches/{_enc(id)}", options=request_options)

    def poll(
        self,
        id: str,
        *,
        poll_interval: float = 1.0,
        max_wait: Optional[float] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Batch:
        """Polls a batch until ``status: completed``."""
        first = self.retrieve(id, request_options=request_options)
        return self._poll(
            first,
            lambda b: b.get("status") == "completed",
            lambda: self.retrieve(id, request_options=request_options),
            poll_interval,
            max_wait,
        )

    def create_and_poll(
        self,
        files: Optional[Sequence[BatchFile]] = None,
        *,
        items: Optional[Sequence[BatchItem]] = None,
        options: Optional[AnalyzeOptions] = None,
        poll_interval: float = 1.0,
        max_wait: Optional[float] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Batch:
        """Creates a batch and polls it until ``status: completed``."""
        created = self.create(files, items=items, options=options, request_options=request_options)
        return self._poll(
            created,
            lambda b: b.get("status") == "completed",
            lambda: self.retrieve(created["id"], request_options=request_options),
            poll_interval,
            max_wait,
        )


class DocumentTypes(_Resource):
    def list(
        self,
        *,
        language: Optional[str] = None,
        country: Optional[str] = None,
        strict: Optional[bool] = None,
        category: Optional[str] = None,
        q: Optional[str] = None,
        limit: Optional[int] = None,
        starting_after: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Page[DocumentType]:
        """GET /v1/document-types (``listDocumentTypes``), public (sent without the key); the cursor is the type id."""
        query = {
            "language": language,
            "country": country,
            "strict": strict,
            "category": category,
            "q": q,
            "limit": limit,
            "starting_after": starting_after,
        }
        return self._paginate("/v1/document-types", query, request_options, cursor_of=lambda t: t["type"], auth=False)

    def retrieve(
        self, type: str, *, language: Optional[str] = None, request_options: Optional[RequestOptions] = None
    ) -> DocumentType:
        """GET /v1/document-types/{type} (``getDocumentType``), public."""
        return self._client.request(
            "GET", f"/v1/document-types/{_enc(type)}", query={"language": language}, auth=False, options=request_options
        )


class WebhookEndpoints(_Resource):
    def create(
        self,
        *,
        url: str,
        events: Iterable[WebhookEventType],
        description: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> WebhookEndpointWithSecret:
        """POST /v1/webhook-endpoints (``createWebhookEndpoint``); the answer includes the signing ``secret``."""
        body: dict[str, Any] = {"url": url, "events": list(events)}
        if description is not None:
            body["description"] = description
        return self._client.request("POST", "/v1/webhook-endpoints", json_body=body, options=request_options)

    def list(self, *, request_options: Optional[RequestOptions] = None) -> Page[WebhookEndpoint]:
        """GET /v1/webhook-endpoints (``listWebhookEndpoints``)."""
        return self._paginate("/v1/webhook-endpoints", {}, request_options)

    def retrieve(self, id: str, *, request_options: Optional[RequestOptions] = None) -> WebhookEndpoint:
        """GET /v1/webhook-endpoints/{id} (``getWebhookEndpoint``)."""
        return self._client.request("GET", f"/v1/webhook-endpoints/{_enc(id)}", options=request_options)

    def delete(self, id: str, *, request_options: Optional[RequestOptions] = None) -> DeletedWebhookEndpoint:
        """DELETE /v1/webhook-endpoints/{id} (``deleteWebhookEndpoint``)."""
        return self._client.request("DELETE", f"/v1/webhook-endpoints/{_enc(id)}", options=request_options)


class VerificationLinks(_Resource):
    def create(
        self, *, request_options: Optional[RequestOptions] = None, **body: Unpack[CreateVerificationLinkRequest]
    ) -> VerificationLink:
        """POST /v1/verification-links (``createVerificationLink``); the body's fields as keyword arguments."""
        return self._client.request("POST", "/v1/verification-links", json_body=_unescape(body), options=request_options)

    def list(
        self,
        *,
        limit: Optional[int] = None,
        starting_after: Optional[str] = None,
        status: Optional[str] = None,
        reference: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Page[VerificationLink]:
        """GET /v1/verification-links (``listVerificationLinks``)."""
        query = {"limit": limit, "starting_after": starting_after, "status": status, "reference": reference, "metadata": metadata}
        return self._paginate("/v1/verification-links", query, request_options)

    def retrieve(self, id: str, *, request_options: Optional[RequestOptions] = None) -> VerificationLink:
        """GET /v1/verification-links/{id} (``getVerificationLink``)."""
        return self._client.request("GET", f"/v1/verification-links/{_enc(id)}", options=request_options)

    def cancel(self, id: str, *, request_options: Optional[RequestOptions] = None) -> VerificationLink:
        """DELETE /v1/verification-links/{id} (``cancelVerificationLink``)."""
        return self._client.request("DELETE", f"/v1/verification-links/{_enc(id)}", options=request_options)


class Reviews(_Resource):
    def list(
        self,
        *,
        status: Optional[str] = None,
        type: Optional[str] = None,
        template: Optional[str] = None,
        limit: Optional[int] = None,
        starting_after: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Page[Analysis]:
        """GET /v1/reviews (``listReviews``): analyses in human review, ``status="pending"`` (oldest first) by default."""
        query = {
            "status": status,
            "type": type,
            "template": template,
            "limit": limit,
            "starting_after": starting_after,
            "metadata": metadata,
        }
        return self._paginate("/v1/reviews", query, request_options)


class BalanceResource(_Resource):
    def retrieve(self, *, request_options: Optional[RequestOptions] = None) -> Balance:
        """GET /v1/balance (``getBalance``)."""
        return self._client.request("GET", "/v1/balance", options=request_options)


class UsageResource(_Resource):
    def retrieve(
        self,
        *,
        from_: Optional[str] = None,
        to: Optional[str] = None,
        type: Optional[str] = None,
        kind: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Usage:
        """GET /v1/usage (``getUsage``); ``from_`` is the query parameter ``from`` (a Python keyword)."""
        query = {"from": from_, "to": to, "type": type, "kind": kind}
        return self._client.request("GET", "/v1/usage", query=query, options=request_options)


class Templates(_Resource):
    def create(self, *, request_options: Optional[RequestOptions] = None, **body: Unpack[CreateTemplateRequest]) -> Template:
        """POST /v1/templates (``createTemplate``); the body's fields as keyword arguments."""
        return self._client.request("POST", "/v1/templates", json_body=_unescape(body), options=request_options)

    def list(
        self,
        *,
        limit: Optional[int] = None,
        starting_after: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Page[Template]:
        """GET /v1/templates (``listTemplates``)."""
        return self._paginate("/v1/templates", {"limit": limit, "starting_after": starting_after}, request_options)

    def retrieve(self, id: str, *, request_options: Optional[RequestOptions] = None) -> Template:
        """GET /v1/templates/{id} (``getTemplate``)."""
        return self._client.request("GET", f"/v1/templates/{_enc(id)}", options=request_options)

    def update(
        self, id: str, *, request_options: Optional[RequestOptions] = None, **body: Unpack[UpdateTemplateRequest]
    ) -> Template:
        """POST /v1/templates/{id} (``updateTemplate``); a field given as None is sent as null (back to its default)."""
        return self._client.request("POST", f"/v1/templates/{_enc(id)}", json_body=_unescape(body), options=request_options)

    def delete(self, id: str, *, request_options: Optional[RequestOptions] = None) -> DeletedTemplate:
        """DELETE /v1/templates/{id} (``deleteTemplate``)."""
        return self._client.request("DELETE", f"/v1/templates/{_enc(id)}", options=request_options)


class Dossiers(_Resource):
    def create(self, *, request_options: Optional[RequestOptions] = None, **body: Unpack[CreateDossierRequest]) -> Dossier:
        """POST /v1/dossiers (``createDossier``); the body's fields as keyword arguments."""
        return self._client.request("POST", "/v1/dossiers", json_body=_unescape(body), options=request_options)

    def list(
        self,
        *,
        limit: Optional[int] = None,
        starting_after: Optional[str] = None,
        reference: Optional[str] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Page[Dossier]:
        """GET /v1/dossiers (``listDossiers``)."""
        query = {"limit": limit, "starting_after": starting_after, "reference": reference}
        return self._paginate("/v1/dossiers", query, request_options)

    def retrieve(self, id: str, *, request_options: Optional[RequestOptions] = None) -> Dossier:
        """GET /v1/dossiers/{id} (``getDossier``)."""
        return self._client.request("GET", f"/v1/dossiers/{_enc(id)}", options=request_options)

    def add_document(
        self,
        id: str,
        file: Optional[FileInput] = None,
        *,
        analysis_id: Optional[str] = None,
        key: Optional[str] = None,
        filename: Optional[str] = None,
        file_url: Optional[str] = None,
        file_base64: Optional[str] = None,
        options: Optional[AnalyzeOptions] = None,
        request_options: Optional[RequestOptions] = None,
        **kwargs: Any,
    ) -> Dossier:
        """POST /v1/dossiers/{id}/documents (``addDossierDocument``): an existing analysis (``analysis_id``) or a
        document analysed for the dossier, given as ``analyses.create`` takes it, in the slot ``key``.

        Answers the dossier once the document is analysed (or linked), or while it is still being analysed
        (``async_=True``, or a long document); ``poll`` waits for it.
        """
        merged = _merge_options(options, kwargs)
        if analysis_id is not None and (file is not None or file_url or file_base64 or filename or merged):
            raise TypeError("dossiers.add_document: `analysis_id` excludes a file and analyze options.")
        body = _document_body(file, filename, file_url, file_base64, merged, {"key": key, "analysis_id": analysis_id})
        return self._client.request("POST", f"/v1/dossiers/{_enc(id)}/documents", options=request_options, **body)

    def poll(
        self,
        id: str,
        *,
        poll_interval: float = 1.0,
        max_wait: Optional[float] = None,
        request_options: Optional[RequestOptions] = None,
    ) -> Dossier:
        """Polls a dossier until none of its documents is ``queued`` or ``processing``."""
        first = self.retrieve(id, request_options=request_options)
        return self._poll(
            first,
            lambda d: all(_finished(doc) for doc in d.get("documents", [])),
            lambda: self.retrieve(id, request_options=request_options),
            poll_interval,
            max_wait,
        )

    def delete(self, id: str, *, request_options: Optional[RequestOptions] = None) -> DeletedDossier:
        """DELETE /v1/dossiers/{id} (``deleteDossier``)."""
        return self._client.request("DELETE", f"/v1/dossiers/{_enc(id)}", options=request_options)


__all__ = [
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
    "BatchFile",
]
