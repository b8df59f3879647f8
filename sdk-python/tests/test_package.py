"""The installed package: where it comes from, what it exports, and that its methods match the OpenAPI document."""

from __future__ import annotations

import importlib.metadata
import inspect
import json
import os
import sys
import typing
import unittest

import cotejo
from cotejo import models
from _support import OPENAPI

# Resource methods and the operation they call: their query keyword arguments must be the operation's query parameters.
QUERY_METHODS = {
    "listAnalyses": ("analyses", "list"),
    "listReviews": ("reviews", "list"),
    "listDocumentTypes": ("document_types", "list"),
    "getDocumentType": ("document_types", "retrieve"),
    "listVerificationLinks": ("verification_links", "list"),
    "listTemplates": ("templates", "list"),
    "listDossiers": ("dossiers", "list"),
    "getUsage": ("usage", "retrieve"),
    "exportAnalysis": ("analyses", "export"),
}
# Every operation of the document and the SDK method that calls it (downloadFile is a signed URL, not an SDK call).
OPERATIONS = {
    "createAnalysis": "analyses.create",
    "listAnalyses": "analyses.list",
    "getAnalysis": "analyses.retrieve",
    "deleteAnalysis": "analyses.delete",
    "exportAnalysis": "analyses.export",
    "getAnalysisFile": "analyses.file",
    "reviewAnalysis": "analyses.review",
    "createClassification": "classifications.create",
    "getClassification": "classifications.retrieve",
    "listReviews": "reviews.list",
    "createBatch": "batches.create",
    "getBatch": "batches.retrieve",
    "listDocumentTypes": "document_types.list",
    "getDocumentType": "document_types.retrieve",
    "createWebhookEndpoint": "webhook_endpoints.create",
    "listWebhookEndpoints": "webhook_endpoints.list",
    "getWebhookEndpoint": "webhook_endpoints.retrieve",
    "deleteWebhookEndpoint": "webhook_endpoints.delete",
    "createVerificationLink": "verification_links.create",
    "listVerificationLinks": "verification_links.list",
    "getVerificationLink": "verification_links.retrieve",
    "cancelVerificationLink": "verification_links.cancel",
    "getBalance": "balance.retrieve",
    "getUsage": "usage.retrieve",
    "createTemplate": "templates.create",
    "listTemplates": "templates.list",
    "getTemplate": "templates.retrieve",
    "updateTemplate": "templates.update",
    "deleteTemplate": "templates.delete",
    "createDossier": "dossiers.create",
    "listDossiers": "dossiers.list",
    "getDossier": "dossiers.retrieve",
    "addDossierDocument": "dossiers.add_document",
    "deleteDossier": "dossiers.delete",
}


def _operations(doc: dict) -> dict[str, dict]:
    return {op["operationId"]: op for item in doc["paths"].values() for op in item.values() if isinstance(op, dict) and "operationId" in op}


def _query_names(doc: dict, op: dict) -> set[str]:
    names = set()
    for p in op.get("parameters", []):
        if "$ref" in p:
            p = doc["components"]["parameters"][p["$ref"].rsplit("/", 1)[1]]
        if p.get("in") == "query":
            names.add(p["name"])
    return names


class InstalledPackage(unittest.TestCase):
    @unittest.skipUnless(os.environ.get("COTEJO_TEST_INSTALLED"), "run from the sources (test/sdk-python sets COTEJO_TEST_INSTALLED)")
    def test_installed_from_venv(self) -> None:
        """When run by test/sdk-python, the package is the one installed in the venv, not the sources."""
        self.assertTrue(cotejo.__file__.startswith(sys.prefix), cotejo.__file__)
        self.assertNotEqual(sys.prefix, sys.base_prefix, "not in a virtual environment")
        self.assertEqual(importlib.metadata.version("cotejo"), cotejo.__version__)
        self.assertIsNone(importlib.metadata.requires("cotejo"))

    def test_client_has_every_resource_of_the_typescript_sdk(self) -> None:
        client = cotejo.Cotejo("ck_test_x")
        for name in (
            "analyses", "classifications", "batches", "document_types", "webhook_endpoints", "verification_links",
            "reviews", "balance", "usage", "templates", "dossiers",
        ):
            self.assertTrue(hasattr(client, name), name)
        self.assertIs(client.webhooks.verify, cotejo.webhooks.verify)
        self.assertTrue(callable(client.analyses.create_and_poll))
        self.assertTrue(callable(client.batches.create_and_poll))

    def test_every_operation_has_its_method(self) -> None:
        doc = json.loads(OPENAPI.read_text())
        ops = set(_operations(doc)) - {"downloadFile"}
        self.assertEqual(ops, set(OPERATIONS))
        client = cotejo.Cotejo("ck_test_x")
        for op, dotted in OPERATIONS.items():
            resource, method = dotted.split(".")
            self.assertTrue(callable(getattr(getattr(client, resource), method)), f"{op}: {dotted}")

    def test_query_arguments_are_the_operations_query_parameters(self) -> None:
        doc = json.loads(OPENAPI.read_text())
        ops = _operations(doc)
        client = cotejo.Cotejo("ck_test_x")
        for op, (resource, method) in QUERY_METHODS.items():
            sig = inspect.signature(getattr(getattr(client, resource), method))
            kwargs = {
                (n[:-1] if n.endswith("_") else n)
                for n, p in sig.parameters.items()
                if p.kind is inspect.Parameter.KEYWORD_ONLY and n != "request_options"
            }
            self.assertEqual(kwargs, _query_names(doc, ops[op]), op)

    def test_models_are_the_document_schemas(self) -> None:
        doc = json.loads(OPENAPI.read_text())
        schemas = doc["components"]["schemas"]
        self.assertEqual(sorted(models.__all__), sorted(schemas))
        for name, schema in schemas.items():
            if "properties" not in schema or "oneOf" in schema or "anyOf" in schema:
                continue
            model = getattr(models, name)
            required = set(schema.get("required", []))
            self.assertEqual(set(model.__required_keys__), required, name)
            self.assertEqual(set(model.__optional_keys__), set(schema["properties"]) - required, name)
        self.assertEqual(typing.get_args(models.JobStatus), tuple(schemas["JobStatus"]["enum"]))

    def test_missing_api_key(self) -> None:
        saved = os.environ.pop("COTEJO_API_KEY", None)
        try:
            with self.assertRaises(cotejo.CotejoError) as ctx:
                cotejo.Cotejo()
            self.assertIn("COTEJO_API_KEY", str(ctx.exception))
            os.environ["COTEJO_API_KEY"] = "ck_test_from_env"
            os.environ["COTEJO_BASE_URL"] = "http://127.0.0.1:9/"
            client = cotejo.Cotejo()
            self.assertEqual(client.api_key, "ck_test_from_env")
            self.assertEqual(client.base_url, "http://127.0.0.1:9")
            self.assertEqual(cotejo.Cotejo("ck_test_arg", base_url="http://x").api_key, "ck_test_arg")
        finally:
            os.environ.pop("COTEJO_API_KEY", None)
            os.environ.pop("COTEJO_BASE_URL", None)
            if saved is not None:
                os.environ["COTEJO_API_KEY"] = saved
        self.assertEqual(cotejo.Cotejo("ck_test_x").base_url, cotejo.DEFAULT_BASE_URL)
