"""The integration scenario, with the Python SDK; examples/integration.ts is the same with the TypeScript SDK, line for
line, and prints the same lines (test/sdk-python/python.test.ts runs both against one server and compares them).

    node examples/make-cert.mjs                                  # a certificate for the local receiver
    COTEJO_ALLOW_PRIVATE_URLS=true NODE_EXTRA_CA_CERTS=examples/.certs/receiver.pem npm start
    pip install cotejo                                           # or the wheel: docs/sdk-python.md
    COTEJO_API_KEY=ck_test_... python3 examples/integration.py

1. analyze with expect: a DNI, synchronously, with its verdict;
2. async + webhook verify: a queued analysis, finished when its signed ``analysis.completed`` arrives and verifies;
3. batch: three documents in one batch, polled until completed, and its verified ``batch.completed``;
4. paginate: every analysis of this run by its metadata, two per page;
5. review: a blurry DNI goes to human review, listed as pending, then approved.
The webhook endpoint it creates is deleted however it ends. COTEJO_BASE_URL (default http://localhost:8080) and
COTEJO_QUICKSTART_CERT_DIR (default examples/.certs) as for the quickstart (docs/quickstart.md).
"""

from __future__ import annotations

import base64
import os
import ssl
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cotejo import Cotejo, WebhookVerificationError

CERT_DIR = Path(os.environ.get("COTEJO_QUICKSTART_CERT_DIR") or Path(__file__).resolve().parent / ".certs")
# Any picture will do in test mode (the file name chooses the simulated reading): a 16x16 grey JPEG.
PHOTO = base64.b64decode(
    "/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2"
    "NjY2NjY2P/wAARCAAQABADASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAb/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAAAv/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/ALMAhf/Z"
)


class Inbox:
    """Events by object id, as the receiver verifies them; ``wait_for`` returns when one arrives (or has arrived)."""

    def __init__(self) -> None:
        self._events: dict[str, dict[str, Any]] = {}
        self._changed = threading.Condition()

    def add(self, event: dict[str, Any]) -> None:
        with self._changed:
            self._events[f"{event['type']}:{event['data']['id']}"] = event
            self._changed.notify_all()

    def wait_for(self, type: str, id: str, seconds: float = 30) -> dict[str, Any]:
        key = f"{type}:{id}"
        with self._changed:
            if not self._changed.wait_for(lambda: key in self._events, timeout=seconds):
                raise TimeoutError(f"no {type} webhook for {id} within {seconds:g} s")
            return self._events[key]


def main(log=print) -> None:
    cotejo = Cotejo(base_url=os.environ.get("COTEJO_BASE_URL") or "http://localhost:8080")  # COTEJO_API_KEY
    inbox = Inbox()
    secret = ""

    # The receiver: HTTPS (Cotejo delivers only there), verifying the RAW body before anything else.
    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                event = cotejo.webhooks.verify(body, self.headers, secret)
            except WebhookVerificationError:
                self.send_response(400)
                self.end_headers()
                return
            self.send_response(204)
            self.end_headers()
            inbox.add(event)

        def log_message(self, *args: Any) -> None:
            pass

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(CERT_DIR / "receiver.pem", CERT_DIR / "receiver-key.pem")
    receiver.socket = tls.wrap_socket(receiver.socket, server_side=True)
    threading.Thread(target=receiver.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    url = f"https://127.0.0.1:{receiver.server_address[1]}/webhooks/cotejo"
    endpoint = cotejo.webhook_endpoints.create(url=url, events=["analysis.completed", "batch.completed"])
    secret = endpoint["secret"]
    log(f"webhook endpoint {endpoint['id']} -> {url}")
    run = {"run": str(uuid.uuid4())}  # this run's analyses, for the pagination step

    try:
        # 1. Analyze with expect.
        dni = cotejo.analyses.create(PHOTO, filename="dni_valid.jpg", expect="es_dni", checks={"min_age_years": 18}, metadata=run)
        log(f"analyze: {dni['id']} {dni['status']}, {dni['document']['type']}, verdict {dni['verdict']['status']}")

        # 2. Async, finished by its verified webhook.
        queued = cotejo.analyses.create(PHOTO, filename="passport.jpg", expect=["passport", "es_dni"], async_=True, metadata=run)
        log(f"async: {queued['id']} {queued['status']}")
        completed = inbox.wait_for("analysis.completed", queued["id"])
        analysis = completed["data"]
        log(f"async: verified webhook {completed['type']} for {analysis['id']}: {analysis['status']}, verdict {analysis['verdict']['status']}")

        # 3. Batch.
        names = ["dni_valid.jpg", "dni_expired.jpg", "dni_valid_2.jpg"]
        created = cotejo.batches.create([(PHOTO, name) for name in names], options={"expect": "es_dni", "metadata": run})
        batch = cotejo.batches.poll(created["id"], poll_interval=0.2, max_wait=60)
        verdicts = [cotejo.analyses.retrieve(id)["verdict"]["status"] for id in batch["analyses"]]
        log(f"batch: {batch['id']} {batch['status']}, {batch['total']} documents: {', '.join(verdicts)}")
        done = inbox.wait_for("batch.completed", batch["id"])
        log(f"batch: verified webhook {done['type']} for {done['data']['id']}")

        # 4. Paginate: every analysis of this run, two per page.
        first = cotejo.analyses.list(metadata=run, limit=2)
        seen = sum(1 for _ in cotejo.analyses.list(metadata=run, limit=2))
        log(f"paginate: {len(first.data)} on the first page, more: {str(first.has_more).lower()}; {seen} in all")

        # 5. Review.
        blurry = cotejo.analyses.create(PHOTO, filename="blurry.jpg", expect="es_dni", metadata=run)
        pending = [a["id"] for a in cotejo.reviews.list(metadata=run)]
        log(
            f"review: {blurry['id']} verdict {blurry['verdict']['status']}, review {blurry['review']['status']}, "
            f"pending in the queue: {str(blurry['id'] in pending).lower()}"
        )
        approved = cotejo.analyses.review(blurry["id"], decision="approve", reason="Legible al ampliar")
        log(f"review: {approved['id']} {approved['review']['status']}, final status {approved['verdict']['final_status']}")
    finally:
        cotejo.webhook_endpoints.delete(endpoint["id"])
        log(f"deleted webhook endpoint {endpoint['id']}")
        receiver.shutdown()
        receiver.server_close()


if __name__ == "__main__":
    main()
