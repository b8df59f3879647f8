"""Every resource against the real server in test mode (test/sdk-python/python.test.ts starts it, with the worker on,
and passes the keys in the environment); an error of each class the server answers; a retry after 429; replayed
idempotent POSTs. Skipped without COTEJO_TEST_BASE_URL."""

from __future__ import annotations

import base64
import io
import re
import time
import unittest
import uuid
from pathlib import Path
from typing import Any

import cotejo
from cotejo import Cotejo
from _support import SERVER, needs_server

ID = r"[0-9A-HJKMNP-TV-Z]{26}"


class Recording(Cotejo):
    """Records the waits (and still waits: the server's rate limit is real)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sleeps: list[float] = []

    def _sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        time.sleep(seconds)


def client(key: str = "", **kwargs: Any) -> Recording:
    kwargs.setdefault("max_retries", 0)
    return Recording(key or SERVER["api_key"], base_url=SERVER["base_url"], **kwargs)


def jpeg() -> bytes:
    return Path(SERVER["jpeg"]).read_bytes()


def tag() -> str:
    return uuid.uuid4().hex[:12]


@needs_server
class Analyses(unittest.TestCase):
    def setUp(self) -> None:
        self.c = client()

    def test_create_from_path_bytes_file_object_base64_and_url(self) -> None:
        path = SERVER["jpeg"]  # named dni_valid.jpg: the simulated reading of a valid DNI
        with open(path, "rb") as f:
            inputs: list[dict[str, Any]] = [
                {"file": path},
                {"file": Path(path)},
                {"file": jpeg(), "filename": "dni_valid.jpg"},
                {"file": f},
                {"file": {"base64": base64.b64encode(jpeg()).decode()}, "filename": "dni_valid.jpg"},
                {"file_base64": base64.b64encode(jpeg()).decode(), "filename": "dni_valid.jpg"},
                {"file": {"url": SERVER["file_url"]}},
                {"file_url": SERVER["file_url"]},
            ]
            for params in inputs:
                with self.subTest(keys=sorted(params), kind=type(params.get("file")).__name__):
                    a = self.c.analyses.create(**params, expect="es_dni", checks={"min_age_years": 18})
                    self.assertRegex(a["id"], rf"^an_{ID}$")
                    self.assertEqual((a["object"], a["status"], a["livemode"]), ("analysis", "completed", False))
                    self.assertEqual(a["document"]["type"], "es_dni")
                    self.assertEqual(a["verdict"]["status"], "valid")
                    self.assertEqual(a["file"]["name"], "dni_valid.jpg")

    def test_retrieve_list_export_file_delete(self) -> None:
        mark = tag()
        made = [self.c.analyses.create(jpeg(), filename="dni_valid.jpg", expect="es_dni", storage="temporary", metadata={"run": mark}) for _ in range(3)]
        again = self.c.analyses.retrieve(made[1]["id"])
        # The signed file_url is made afresh on every read; the rest is the analysis as created.
        self.assertEqual({k: v for k, v in again.items() if k != "file_url"}, {k: v for k, v in made[1].items() if k != "file_url"})

        page = self.c.analyses.list(metadata={"run": mark}, limit=2)
        self.assertEqual(len(page.data), 2)
        self.assertTrue(page.has_more)
        every = [a["id"] for a in self.c.analyses.list(metadata={"run": mark}, limit=2)]
        self.assertEqual(every, [a["id"] for a in reversed(made)])  # newest first, every page
        self.assertEqual([p.data[0]["id"] for p in page.iter_pages()], [made[2]["id"], made[0]["id"]])

        export = self.c.analyses.export(made[0]["id"], format="json")
        self.assertEqual(export.status, 200)
        self.assertIn("json", export.content_type or "")
        self.assertIn(made[0]["id"], export.text())
        original = self.c.analyses.file(made[0]["id"])
        self.assertEqual(original.content, jpeg())

        deleted = self.c.analyses.delete(made[0]["id"])
        self.assertEqual(deleted, {"id": made[0]["id"], "object": "analysis", "deleted": True})
        with self.assertRaises(cotejo.NotFoundError) as ctx:
            self.c.analyses.retrieve(made[0]["id"])
        self.assertEqual(ctx.exception.code, "resource_missing")

    def test_create_and_poll_async(self) -> None:
        done = self.c.analyses.create_and_poll(jpeg(), filename="dni_valid.jpg", expect="es_dni", async_=True, poll_interval=0.05, max_wait=30)
        self.assertEqual(done["status"], "completed")
        self.assertEqual(done["verdict"]["status"], "valid")
        self.assertTrue(self.c.sleeps, "it polled at least once (the 202 answer was queued)")

    def test_classifications(self) -> None:
        c = self.c.classifications.create(jpeg(), filename="passport.jpg")
        self.assertRegex(c["id"], rf"^an_{ID}$")  # classifications share the analyses' ids
        self.assertEqual(c["object"], "classification")
        self.assertEqual(self.c.classifications.retrieve(c["id"])["id"], c["id"])


@needs_server
class Batches(unittest.TestCase):
    def test_files_then_poll_and_items_with_create_and_poll(self) -> None:
        c = client()
        b = c.batches.create([(jpeg(), "dni_valid.jpg"), {"file": io.BytesIO(jpeg()), "filename": "dni_expired.jpg"}], options={"expect": "es_dni"})
        self.assertRegex(b["id"], rf"^bat_{ID}$")
        self.assertEqual(b["object"], "batch")
        done = c.batches.poll(b["id"], poll_interval=0.05, max_wait=30)
        self.assertEqual(done["status"], "completed")
        self.assertEqual(c.batches.retrieve(b["id"])["status"], "completed")
        by_items = c.batches.create_and_poll(
            items=[{"file_url": SERVER["file_url"]}, {"file_base64": base64.b64encode(jpeg()).decode(), "filename": "dni_valid.jpg"}],
            options={"expect": "es_dni"},
            poll_interval=0.05,
            max_wait=30,
        )
        self.assertEqual(by_items["status"], "completed")


@needs_server
class Catalogue(unittest.TestCase):
    def test_document_types_public_and_paginated(self) -> None:
        # The catalogue is public: even a wrong key is not sent.
        c = client("ck_test_wrong")
        page = c.document_types.list(limit=5)
        self.assertEqual(len(page.data), 5)
        self.assertTrue(page.has_more)
        every = [t["type"] for t in c.document_types.list(limit=50)]
        self.assertEqual(len(every), len(set(every)))
        self.assertGreater(len(every), 50)
        self.assertIn("es_dni", every)
        dni = c.document_types.retrieve("es_dni", language="en")
        self.assertEqual((dni["object"], dni["type"]), ("document_type", "es_dni"))


@needs_server
class Account(unittest.TestCase):
    def test_balance_and_usage(self) -> None:
        c = client()
        balance = c.balance.retrieve()
        self.assertEqual(balance["object"], "balance")
        self.assertIsInstance(balance["credits_spendable"], (int, float))
        usage = c.usage.retrieve(from_="2025-01-01", to=time.strftime("%Y-%m-%d"))
        self.assertEqual((usage["object"], usage["from"]), ("usage", "2025-01-01"))
        self.assertIn("totals", usage)


@needs_server
class WebhookEndpointsAndLinks(unittest.TestCase):
    def test_webhook_endpoints(self) -> None:
        c = client()
        url = f"https://127.0.0.1:9/hooks/{tag()}"
        made = c.webhook_endpoints.create(url=url, events=["analysis.completed"], description="Python SDK")
        self.assertRegex(made["id"], rf"^we_{ID}$")
        self.assertTrue(made["secret"].startswith("whsec_"))
        self.assertEqual(c.webhook_endpoints.retrieve(made["id"])["url"], url)
        self.assertIn(made["id"], [e["id"] for e in c.webhook_endpoints.list()])
        self.assertEqual(c.webhook_endpoints.delete(made["id"]), {"id": made["id"], "object": "webhook_endpoint", "deleted": True})
        with self.assertRaises(cotejo.NotFoundError):
            c.webhook_endpoints.retrieve(made["id"])

    def test_verification_links(self) -> None:
        c = client()
        reference = f"py-{tag()}"
        link = c.verification_links.create(reference=reference, documents=[{"key": "dni", "label": "DNI", "expect": "es_dni"}])
        self.assertRegex(link["id"], rf"^vl_{ID}$")
        self.assertEqual(link["status"], "pending")
        self.assertEqual(c.verification_links.retrieve(link["id"])["id"], link["id"])
        self.assertEqual([x["id"] for x in c.verification_links.list(reference=reference)], [link["id"]])
        cancelled = c.verification_links.cancel(link["id"])
        self.assertEqual(cancelled["status"], "cancelled")
        self.assertEqual(c.verification_links.retrieve(link["id"])["status"], "cancelled")


@needs_server
class ReviewsTemplatesDossiers(unittest.TestCase):
    def setUp(self) -> None:
        self.c = client()

    def test_review_approve_then_already_reviewed(self) -> None:
        mark = tag()
        a = self.c.analyses.create(jpeg(), filename="blurry.jpg", expect="es_dni", metadata={"run": mark})
        self.assertEqual(a["verdict"]["status"], "review")
        self.assertEqual(a["review"]["status"], "pending")
        self.assertEqual([x["id"] for x in self.c.reviews.list(metadata={"run": mark})], [a["id"]])
        approved = self.c.analyses.review(a["id"], decision="approve", reason="Legible al ampliar")
        self.assertEqual((approved["review"]["status"], approved["verdict"]["final_status"]), ("approved", "valid"))
        self.assertEqual(self.c.analyses.review(a["id"], decision="approve")["review"]["status"], "approved")
        with self.assertRaises(cotejo.ConflictError) as ctx:
            self.c.analyses.review(a["id"], decision="reject")
        self.assertEqual(ctx.exception.code, "already_reviewed")
        self.assertEqual([x["id"] for x in self.c.reviews.list(status="approved", metadata={"run": mark})], [a["id"]])

    def test_templates(self) -> None:
        tpl = self.c.templates.create(name="Alta", expect="es_dni", checks={"min_age_years": 18}, review_max_days=7)
        self.assertRegex(tpl["id"], rf"^tpl_{ID}$")
        self.assertEqual((tpl["expect"], tpl["review_max_days"]), (["es_dni"], 7))
        self.assertEqual(self.c.templates.retrieve(tpl["id"]), tpl)
        reset = self.c.templates.update(tpl["id"], name="Alta 2", review_max_days=None)
        self.assertEqual((reset["name"], reset["review_max_days"]), ("Alta 2", None))
        self.assertIn(tpl["id"], [t["id"] for t in self.c.templates.list(limit=1)])
        used = self.c.analyses.create(jpeg(), filename="dni_valid.jpg", template=tpl["id"])
        self.assertEqual(used["verdict"]["status"], "valid")
        self.assertEqual(self.c.templates.delete(tpl["id"]), {"id": tpl["id"], "object": "template", "deleted": True})

    def test_dossiers(self) -> None:
        reference = f"EXP-{tag()}"
        dos = self.c.dossiers.create(reference=reference, documents=[{"key": "dni", "label": "DNI", "expect": "es_dni"}])
        self.assertRegex(dos["id"], rf"^dos_{ID}$")
        self.assertEqual(dos["verdict"]["status"], "incomplete")
        added = self.c.dossiers.add_document(dos["id"], jpeg(), filename="dni_valid.jpg", key="dni", async_=True)
        self.assertEqual(added["documents"][0]["key"], "dni")
        done = self.c.dossiers.poll(dos["id"], poll_interval=0.05, max_wait=30)
        self.assertEqual(done["verdict"]["status"], "complete_valid")
        a = self.c.analyses.create(jpeg(), filename="dni_valid.jpg", expect="es_dni")
        other = self.c.dossiers.create(reference=reference, expect=["es_dni"])
        linked = self.c.dossiers.add_document(other["id"], analysis_id=a["id"])
        self.assertEqual((linked["documents"][0]["analysis_id"], linked["verdict"]["status"]), (a["id"], "complete_valid"))
        self.assertEqual([d["id"] for d in self.c.dossiers.list(reference=reference, limit=1)], [other["id"], dos["id"]])
        self.assertEqual(self.c.dossiers.delete(dos["id"]), {"id": dos["id"], "object": "dossier", "deleted": True})
        self.assertEqual(self.c.dossiers.retrieve(other["id"])["id"], other["id"])


@needs_server
class Idempotency(unittest.TestCase):
    def test_a_replayed_post_answers_the_first_result(self) -> None:
        c = client()
        key = f"py-replay-{tag()}"
        first = c.analyses.create(jpeg(), filename="dni_valid.jpg", expect="es_dni", request_options={"idempotency_key": key})
        replay = c.analyses.create(jpeg(), filename="dni_valid.jpg", expect="es_dni", request_options={"idempotency_key": key})
        self.assertEqual(replay, first)
        tpl_key = f"py-tpl-{tag()}"
        self.assertEqual(c.templates.create(name="I", request_options={"idempotency_key": tpl_key}), c.templates.create(name="I", request_options={"idempotency_key": tpl_key}))
        with self.assertRaises(cotejo.UnprocessableEntityError) as ctx:
            c.templates.create(name="other body", request_options={"idempotency_key": tpl_key})
        self.assertEqual(ctx.exception.code, "idempotency_key_reused")


@needs_server
class RateLimit(unittest.TestCase):
    def test_429_is_retried_after_retry_after_then_succeeds(self) -> None:
        # An account limited to 1 request per second (fixed one-second windows): of three requests in a row at most
        # two fit (one per window when a second boundary falls between them), so one of them gets 429.
        bare = client(SERVER["throttled_key"], max_retries=0)
        errors = []
        for _ in range(3):
            try:
                bare.balance.retrieve()
            except cotejo.RateLimitError as err:
                errors.append(err)
        self.assertTrue(errors, "no 429 in three requests at 1 request per second")
        err = errors[0]
        self.assertEqual((err.status, err.code, err.type), (429, "rate_limited", "rate_limited"))
        self.assertRegex(err.headers.get("retry-after") if err.headers else "", r"^\d+$")
        self.assertRegex(err.request_id or "", r"^req_")
        # The SDK waits what Retry-After says and retries; each template is created once (one Idempotency-Key per call).
        throttled = client(SERVER["throttled_key"], max_retries=5)
        prefix = f"after-429-{tag()}"
        names = [f"{prefix}-{i}" for i in range(3)]
        for name in names:
            self.assertEqual(throttled.templates.create(name=name)["name"], name)
        self.assertTrue(throttled.sleeps, "three creates in a row at 1 request per second: at least one was retried")
        self.assertTrue(all(0 <= s <= 1.0 for s in throttled.sleeps), throttled.sleeps)
        made = [t["name"] for t in throttled.templates.list(limit=100) if t["name"].startswith(prefix)]
        self.assertEqual(sorted(made), names)


@needs_server
class Errors(unittest.TestCase):
    """An error of each class the server answers in test mode (every class, status by status: test_transport.py)."""

    def test_bad_request(self) -> None:
        with self.assertRaises(cotejo.BadRequestError) as ctx:
            client().analyses.create(expect="es_dni")
        err = ctx.exception
        self.assertEqual((err.status, err.code, err.type), (400, "missing_file", "invalid_request"))
        self.assertRegex(err.request_id or "", r"^req_")
        self.assertEqual(err.headers.get("x-request-id"), err.request_id)

    def test_authentication(self) -> None:
        with self.assertRaises(cotejo.AuthenticationError) as ctx:
            client("ck_test_" + "0" * 32).balance.retrieve()
        self.assertEqual((ctx.exception.status, ctx.exception.code), (401, "invalid_api_key"))

    def test_insufficient_credits(self) -> None:
        # Live mode on a new account: only the free tier could pay and the email is not verified.
        with self.assertRaises(cotejo.InsufficientCreditsError) as ctx:
            client(SERVER["live_key"]).analyses.create(jpeg(), filename="dni_valid.jpg", expect="es_dni")
        self.assertEqual((ctx.exception.status, ctx.exception.code), (402, "email_not_verified"))

    def test_permission_denied(self) -> None:
        with self.assertRaises(cotejo.PermissionDeniedError) as ctx:
            client(SERVER["publishable_key"]).reviews.list()
        self.assertEqual((ctx.exception.status, ctx.exception.code), (403, "publishable_key_not_allowed"))

    def test_not_found(self) -> None:
        with self.assertRaises(cotejo.NotFoundError) as ctx:
            client().dossiers.retrieve("dos_01JPB2M4N6P8Q0R2S4T6V8W0X2")
        self.assertEqual((ctx.exception.status, ctx.exception.code), (404, "resource_missing"))

    def test_conflict(self) -> None:
        a = client().analyses.create(jpeg(), filename="dni_valid.jpg")  # no expect: no verdict to review
        with self.assertRaises(cotejo.ConflictError) as ctx:
            client().analyses.review(a["id"], decision="approve")
        self.assertEqual((ctx.exception.status, ctx.exception.code), (409, "not_reviewable"))

    def test_payload_too_large(self) -> None:
        with self.assertRaises(cotejo.PayloadTooLargeError) as ctx:
            client().analyses.create(jpeg() + b"\0" * (20 * 1024 * 1024), filename="dni_valid.jpg")
        self.assertEqual((ctx.exception.status, ctx.exception.code), (413, "file_too_large"))

    def test_unsupported_media_type(self) -> None:
        with self.assertRaises(cotejo.UnsupportedMediaTypeError) as ctx:
            client().analyses.create(b"just some text, not a document", filename="notes.txt")
        self.assertEqual((ctx.exception.status, ctx.exception.code), (415, "unsupported_file_type"))

    def test_unprocessable_entity_with_param(self) -> None:
        with self.assertRaises(cotejo.UnprocessableEntityError) as ctx:
            client().analyses.create(jpeg(), filename="dni_valid.jpg", expect="no_such_type")
        err = ctx.exception
        self.assertEqual((err.status, err.code, err.param), (422, "invalid_parameter", "options.expect"))
        with self.assertRaises(cotejo.UnprocessableEntityError) as ctx:
            client().dossiers.create(template="tpl_01JPB2M4N6P8Q0R2S4T6V8W0X2")
        self.assertEqual(ctx.exception.code, "template_not_found")

    def test_connection_error_names_the_request(self) -> None:
        c = Cotejo("ck_test_x", base_url="http://127.0.0.1:9", max_retries=0)
        with self.assertRaises(cotejo.APIConnectionError) as ctx:
            c.balance.retrieve()
        self.assertIn("GET http://127.0.0.1:9/v1/balance failed", str(ctx.exception))
