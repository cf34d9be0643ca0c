"""schemathesis hooks for .ci/api-check.

/v1/sanitize answers with the request's own content type, so a fuzzed request sent as YAML gets a
sanitized YAML-typed body back, which may hold characters YAML forbids (C1 controls are text
utf8gate's default profile logs, not rejects). schemathesis 4.32's YAML deserializer raises on
such a body in a worker thread, which stops the fuzzing phase. The document says the sanitize
response is opaque bytes (a binary string), so a YAML-typed body is handed to the checks as
text, never parsed.
"""

import schemathesis
from schemathesis.core import media_types


@schemathesis.deserializer(*media_types.YAML_MEDIA_TYPES)
def yaml_as_text(_ctx, response):
    return response.content.decode("utf-8", errors="replace")
