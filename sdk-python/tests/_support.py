"""Shared helpers of the cotejo tests (stdlib unittest; run: python3 -m unittest discover -s sdk-python/tests)."""

from __future__ import annotations

import os
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def env_path(name: str, default: Path) -> Path:
    value = os.environ.get(name)
    return Path(value) if value else default


#: The Standard Webhooks vectors (../shared/testdata, read in place, never copied).
VECTORS = env_path("COTEJO_WEBHOOK_VECTORS", REPO.parent / "shared" / "testdata" / "webhooks" / "standard-webhooks-vectors.json")
#: The contract the SDK is generated from.
OPENAPI = env_path("COTEJO_OPENAPI", REPO / "generated" / "openapi.json")

#: The real server (test/sdk-python/python.test.ts starts it and sets these); without it the server tests skip.
SERVER = {
    "base_url": os.environ.get("COTEJO_TEST_BASE_URL", ""),
    "api_key": os.environ.get("COTEJO_TEST_API_KEY", ""),
    "live_key": os.environ.get("COTEJO_TEST_LIVE_KEY", ""),
    "publishable_key": os.environ.get("COTEJO_TEST_PUBLISHABLE_KEY", ""),
    "throttled_key": os.environ.get("COTEJO_TEST_THROTTLED_KEY", ""),
    "jpeg": os.environ.get("COTEJO_TEST_JPEG", ""),
    "file_url": os.environ.get("COTEJO_TEST_FILE_URL", ""),
}

needs_server = unittest.skipUnless(SERVER["base_url"], "no server: set COTEJO_TEST_BASE_URL (npx vitest run test/sdk-python)")
