"""The HTTP core against a local stub server (http.server): what the real server cannot be made to answer on demand
(every error status, 5xx retries, Retry-After as a date, time-outs, refused connections) and the exact bytes sent
(multipart, JSON, query strings, headers). The same behaviour against the real server: test_server.py."""

from __future__ import annotations

import email.parser
import email.policy
import email.utils
import io
import json
import socket
import tempfile
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Optional

import cotejo
from cotejo import Cotejo


class Recorded:
    def __init__(self, method: str, path: str, headers: Any, body: bytes) -> None:
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)

    def multipart(self) -> dict[str, tuple[Optional[str], bytes]]:
        """name -> (filename, bytes) of each part (the last of a repeated name; see parts())."""
        return {name: (filename, data) for name, filename, data in self.parts()}

    def parts(self) -> list[tuple[str, Optional[str], bytes]]:
        raw = f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + self.body
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(raw)
        out = []
        for part in msg.iter_parts():
            out.append((part.get_param("name", header="content-disposition"), part.get_filename(), part.get_payload(decode=True)))
        return out


class Stub:
    """Answers each request with the next scripted answer (status, headers, body), then 200 {}; records requests."""

    def __init__(self) -> None:
        self.script: list[tuple[int, dict[str, str], Any]] = []
        self.requests: list[Recorded] = []
        self.delay = 0.0
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def handle_one(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                stub.requests.append(Recorded(self.command, self.path, self.headers, body))
                if stub.delay:
                    time.sleep(stub.delay)
                status, headers, answer = stub.script.pop(0) if stub.script else (200, {}, {})
                data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", headers.pop("Content-Type", "application/json"))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_DELETE = handle_one

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Recording(Cotejo):
    """Records the waits instead of sleeping."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sleeps: list[float] = []

    def _sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


def envelope(status: int, code: str, param: Optional[str] = None) -> dict[str, Any]:
    return {"error": {"type": "invalid_request", "code": code, "message": f"msg {code}", "param": param, "request_id": f"req_{status}"}}


class Transport(unittest.TestCase):
    def setUp(self) -> None:
        self.stub = Stub()
        self.client = Recording("ck_test_stub", base_url=self.stub.url + "/")

    def tearDown(self) -> None:
        self.stub.close()

    def test_headers_auth_and_idempotency_key(self) -> None:
        self.client.balance.retrieve()
        self.client.templates.create(name="A")
        self.client.templates.create(name="B", request_options={"idempotency_key": "mine", "headers": {"X-Extra": "1"}})
        self.client.document_types.list()
        get, post, mine, public = self.stub.requests
        self.assertEqual(get.headers["Authorization"], "Bearer ck_test_stub")
        self.assertEqual(get.headers["Accept"], "application/json")
        self.assertTrue(get.headers["User-Agent"].startswith("cotejo-python/"))
        self.assertIsNone(get.headers["Idempotency-Key"])
        self.assertRegex(post.headers["Idempotency-Key"], r"^cotejo-sdk-[0-9a-f-]{36}$")
        self.assertEqual(post.json(), {"name": "A"})
        self.assertEqual(mine.headers["Idempotency-Key"], "mine")
        self.assertEqual(mine.headers["X-Extra"], "1")
        self.assertIsNone(public.headers["Authorization"], "the catalogue is public: no key sent")

    def test_error_classes(self) -> None:
        classes = {
            400: cotejo.BadRequestError,
            401: cotejo.AuthenticationError,
            402: cotejo.InsufficientCreditsError,
            403: cotejo.PermissionDeniedError,
            404: cotejo.NotFoundError,
            409: cotejo.ConflictError,
            413: cotejo.PayloadTooLargeError,
            415: cotejo.UnsupportedMediaTypeError,
            422: cotejo.UnprocessableEntityError,
            429: cotejo.RateLimitError,
            500: cotejo.InternalServerError,
            501: cotejo.NotImplementedByServerError,
            503: cotejo.InternalServerError,
            418: cotejo.CotejoError,
        }
        for status, cls in classes.items():
            with self.subTest(status=status):
                self.stub.script.append((status, {"X-Request-Id": f"req_h{status}"}, envelope(status, f"code_{status}", "options.expect")))
                with self.assertRaises(cls) as ctx:
                    self.client.balance.retrieve(request_options={"max_retries": 0})
                err = ctx.exception
                self.assertIs(type(err), cls)
                self.assertEqual((err.status, err.code, err.param, err.request_id), (status, f"code_{status}", "options.expect", f"req_{status}"))
                self.assertEqual(err.type, "invalid_request")
                self.assertEqual(err.headers.get("x-request-id"), f"req_h{status}")
                self.assertEqual(str(err), f"{status} code_{status}: msg code_{status}")

    def test_an_error_without_envelope_keeps_the_text_and_the_header_request_id(self) -> None:
        self.stub.script.append((502, {"Content-Type": "text/plain", "X-Request-Id": "req_proxy"}, b"Bad gateway"))
        with self.assertRaises(cotejo.InternalServerError) as ctx:
            self.client.balance.retrieve(request_options={"max_retries": 0})
        self.assertEqual(str(ctx.exception), "502 Bad gateway")
        self.assertIsNone(ctx.exception.code)
        self.assertEqual(ctx.exception.request_id, "req_proxy")

    def test_retries_429_after_retry_after_with_the_same_idempotency_key(self) -> None:
        self.stub.script.append((429, {"Retry-After": "2"}, envelope(429, "rate_limited")))
        self.stub.script.append((200, {}, {"id": "tpl_1"}))
        self.assertEqual(self.client.templates.create(name="A"), {"id": "tpl_1"})
        self.assertEqual(self.client.sleeps, [2.0])
        keys = [r.headers["Idempotency-Key"] for r in self.stub.requests]
        self.assertEqual(len(keys), 2)
        self.assertEqual(keys[0], keys[1])

    def test_retry_after_as_an_http_date(self) -> None:
        when = email.utils.formatdate(time.time() + 30, usegmt=True)
        self.stub.script.append((503, {"Retry-After": when}, envelope(503, "live_mode_unavailable")))
        self.client.balance.retrieve()
        self.assertEqual(len(self.client.sleeps), 1)
        self.assertTrue(27 <= self.client.sleeps[0] <= 30, self.client.sleeps)
        self.assertIsNone(cotejo.parse_retry_after("soon"))
        self.assertEqual(cotejo.parse_retry_after("0"), 0.0)

    def test_retryable_answers_and_back_off(self) -> None:
        for status, code in [(408, "x"), (409, "idempotency_in_progress"), (500, "internal_error"), (502, "x"), (504, "x")]:
            self.assertTrue(cotejo.is_retryable(status, code), status)
        for status, code in [(409, "already_reviewed"), (501, "not_implemented"), (400, "x"), (422, "x")]:
            self.assertFalse(cotejo.is_retryable(status, code), status)
        # 500 three times: two retries (the default), with growing back-off, then the error.
        for _ in range(3):
            self.stub.script.append((500, {}, envelope(500, "internal_error")))
        with self.assertRaises(cotejo.InternalServerError):
            self.client.balance.retrieve()
        self.assertEqual(len(self.stub.requests), 3)
        self.assertEqual(len(self.client.sleeps), 2)
        self.assertTrue(0.375 <= self.client.sleeps[0] <= 0.5 and 0.75 <= self.client.sleeps[1] <= 1.0, self.client.sleeps)
        # Not retried: 501, a 409 other than idempotency_in_progress.
        for status, code in [(501, "not_implemented"), (409, "already_reviewed")]:
            self.stub.requests.clear()
            self.stub.script.append((status, {}, envelope(status, code)))
            with self.assertRaises(cotejo.CotejoError):
                self.client.analyses.review("an_1", decision="approve")
            self.assertEqual(len(self.stub.requests), 1, code)

    def test_connection_refused(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        client = Recording("ck_test_x", base_url=f"http://127.0.0.1:{port}", max_retries=1)
        with self.assertRaises(cotejo.APIConnectionError) as ctx:
            client.templates.create(name="A")
        err = ctx.exception
        self.assertNotIsInstance(err, cotejo.APITimeoutError)
        self.assertIn(f"Connection error: POST http://127.0.0.1:{port}/v1/templates failed: ", str(err))
        self.assertIn("(retried 1 time)", str(err))
        self.assertEqual((err.method, err.url, err.status), ("POST", f"http://127.0.0.1:{port}/v1/templates", None))
        self.assertIsInstance(err.__cause__, Exception)

    def test_timeout(self) -> None:
        self.stub.delay = 1.0
        with self.assertRaises(cotejo.APITimeoutError) as ctx:
            self.client.balance.retrieve(request_options={"timeout": 0.2, "max_retries": 0})
        self.assertIn(f"Request timed out after 0.2 s: GET {self.stub.url}/v1/balance", str(ctx.exception))

    def test_multipart_from_bytes_path_and_file_object(self) -> None:
        data = b"\xff\xd8\xff jpeg bytes"
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "dni_valid.jpg"
            path.write_bytes(data)
            self.client.analyses.create(data, filename='dni "1".jpg', expect="es_dni", async_=True)
            self.client.analyses.create(path, options={"expect": ["es_dni"]})
            self.client.analyses.create(str(path))
            with open(path, "rb") as f:
                self.client.classifications.create(f)
            self.client.analyses.create(io.BytesIO(data), filename="named.jpg")
        first, by_path, by_str, by_file, by_io = (r.multipart() for r in self.stub.requests)
        self.assertEqual(first["file"], ('dni %221%22.jpg', data))
        self.assertEqual(json.loads(first["options"][1]), {"expect": "es_dni", "async": True})
        self.assertEqual(by_path["file"], ("dni_valid.jpg", data))
        self.assertEqual(json.loads(by_path["options"][1]), {"expect": ["es_dni"]})
        self.assertNotIn("options", by_str)
        self.assertEqual(by_file["file"], ("dni_valid.jpg", data))
        self.assertEqual(by_io["file"], ("named.jpg", data))
        self.assertEqual(self.stub.requests[3].path, "/v1/classify")

    def test_remote_files_go_as_json(self) -> None:
        self.client.analyses.create({"url": "https://files.example/a.jpg"}, expect="es_dni")
        self.client.analyses.create(file_base64="AAAA", filename="a.jpg")
        self.client.dossiers.add_document("dos_1", analysis_id="an_1", key="dni")
        a, b, c = (r.json() for r in self.stub.requests)
        self.assertEqual(a, {"file_url": "https://files.example/a.jpg", "options": {"expect": "es_dni"}})
        self.assertEqual(b, {"file_base64": "AAAA", "filename": "a.jpg"})
        self.assertEqual(c, {"key": "dni", "analysis_id": "an_1"})
        with self.assertRaises(TypeError):
            self.client.dossiers.add_document("dos_1", b"x", analysis_id="an_1")

    def test_batch_files_and_items(self) -> None:
        self.client.batches.create([b"one", (b"two", "two.jpg"), {"file": b"three", "filename": "three.jpg"}], options={"expect": "es_dni"})
        self.client.batches.create(items=[{"file_url": "https://files.example/a.jpg"}])
        parts = self.stub.requests[0].parts()
        self.assertEqual([(n, f, d) for n, f, d in parts if n == "files[]"], [("files[]", "file", b"one"), ("files[]", "two.jpg", b"two"), ("files[]", "three.jpg", b"three")])
        self.assertEqual(json.loads(parts[-1][2]), {"expect": "es_dni"})
        self.assertEqual(self.stub.requests[1].json(), {"items": [{"file_url": "https://files.example/a.jpg"}]})
        with self.assertRaises(TypeError):
            self.client.batches.create()

    def test_query_strings(self) -> None:
        self.client.reviews.list(status="all", metadata={"lote": "a b"}, limit=2)
        self.client.document_types.list(strict=True, country="ES")
        self.client.usage.retrieve(from_="2025-03-01", to="2025-03-31")
        self.client.analyses.export("an/1", format="csv")
        paths = [r.path for r in self.stub.requests]
        self.assertEqual(paths[0], "/v1/reviews?status=all&limit=2&metadata%5Blote%5D=a+b")
        self.assertEqual(paths[1], "/v1/document-types?country=ES&strict=true")
        self.assertEqual(paths[2], "/v1/usage?from=2025-03-01&to=2025-03-31")
        self.assertEqual(paths[3], "/v1/analyses/an%2F1/export?format=csv")

    def test_auto_pagination_follows_the_last_id(self) -> None:
        self.stub.script += [
            (200, {}, {"object": "list", "data": [{"id": "a"}, {"id": "b"}], "has_more": True}),
            (200, {}, {"object": "list", "data": [{"id": "c"}], "has_more": True}),
            (200, {}, {"object": "list", "data": [], "has_more": False}),
        ]
        page = self.client.templates.list(limit=2, starting_after="z")
        self.assertEqual([t["id"] for t in page.data], ["a", "b"])
        self.assertTrue(page.has_next_page())
        self.assertEqual([t["id"] for t in page], ["a", "b", "c"])
        self.assertEqual(
            [r.path for r in self.stub.requests],
            ["/v1/templates?limit=2&starting_after=z", "/v1/templates?limit=2&starting_after=b", "/v1/templates?limit=2&starting_after=c"],
        )

    def test_binary_answers(self) -> None:
        self.stub.script.append((200, {"Content-Type": "text/csv"}, b"a,b\n1,2\n"))
        export = self.client.analyses.export("an_1", format="csv")
        self.assertEqual(export.content, b"a,b\n1,2\n")
        self.assertEqual(export.content_type, "text/csv")
        self.assertEqual(self.stub.requests[0].headers["Accept"], "*/*")

    def test_create_and_poll_waits_between_polls_and_gives_up(self) -> None:
        self.stub.script += [
            (202, {}, {"id": "an_1", "status": "queued"}),
            (200, {}, {"id": "an_1", "status": "processing"}),
            (200, {}, {"id": "an_1", "status": "completed"}),
        ]
        done = self.client.analyses.create_and_poll(b"x", async_=True, poll_interval=0.25)
        self.assertEqual(done["status"], "completed")
        self.assertEqual(self.client.sleeps, [0.25, 0.25])
        self.assertEqual([r.method for r in self.stub.requests], ["POST", "GET", "GET"])
        self.stub.script.append((200, {}, {"id": "b_1", "status": "processing"}))
        with self.assertRaises(cotejo.PollingTimeoutError):
            self.client.batches.poll("b_1", poll_interval=1, max_wait=0.5)
