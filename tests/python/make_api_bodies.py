#!/usr/bin/env python3
r"""Binary API request bodies made by real encoders, for utf8gate's tests.

    PY=$(bash tests/python/setup-venv.sh | tail -n 1)
    "$PY" tests/python/make_api_bodies.py

prints one JSON document:

    {"bodies": [{"name": "protobuf_struct", "type": "application/x-protobuf", "hex": "0a..."}, ...]}

Each body is what a client sends with that Content-Type. Encoders: protobuf (Google's
`protobuf` package, well-known types, deterministic serialization), cbor2, msgpack, pymongo's
bson, fastavro (object container file, fixed sync marker) and cryptography (a self-signed
Ed25519 certificate from a fixed key: Ed25519 signatures are deterministic). Thrift has no
pinned encoder: its binary protocol is built by hand below, field by field. gRPC bodies wrap
the protobuf (or JSON) messages in gRPC's 5-byte length-prefixed frames.

Every body is the same bytes on every run (same pinned versions). Two of them are valid UTF-8
all the same: grpc_web_text (base64, ASCII) and grpc_json (its frame header 00 00 00 00 65 is
NULs and a length byte below 0x80, then JSON text); all the others are not.
"""

import base64
import datetime
import io
import json
import struct
import sys

FIXED = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
TEXT = "Résumé — Ærøskøbing, Привет, 東京, مرحبا"


def protobuf_struct():
    from google.protobuf import struct_pb2

    s = struct_pb2.Struct()
    s.update({"name": TEXT, "count": 3, "ok": True, "tags": ["東京", "Ærø"], "nested": {"x": 1.5}})
    return s.SerializeToString(deterministic=True)


def protobuf_timestamp():
    from google.protobuf import timestamp_pb2

    ts = timestamp_pb2.Timestamp()
    ts.FromDatetime(FIXED + datetime.timedelta(microseconds=123456))
    return ts.SerializeToString(deterministic=True)


def cbor_map():
    import cbor2

    return cbor2.dumps({"name": TEXT, "count": 3, "blob": bytes(range(0xF0, 0x100)),
                        "when": FIXED, "ratio": 0.25, "list": [1, -2, None]}, canonical=True)


def msgpack_map():
    import msgpack

    return msgpack.packb({"name": TEXT, "count": 3, "blob": bytes(range(0xF0, 0x100)),
                          "when": msgpack.Timestamp.from_datetime(FIXED), "ratio": 0.25,
                          "list": [1, -2, None]}, use_bin_type=True)


def bson_document():
    import bson
    from bson.binary import Binary
    from bson.int64 import Int64
    from bson.objectid import ObjectId

    return bson.encode({"_id": ObjectId("5e0be1000000000000000001"), "name": TEXT,
                        "count": Int64(3), "blob": Binary(bytes(range(0xF0, 0x100))),
                        "when": FIXED, "tags": ["東京", "Ærø"]})


def avro_container():
    import fastavro

    schema = fastavro.parse_schema({
        "type": "record", "name": "Note", "namespace": "demo",
        "fields": [{"name": "id", "type": "long"}, {"name": "text", "type": "string"},
                   {"name": "blob", "type": "bytes"}],
    })
    out = io.BytesIO()
    records = [{"id": i, "text": t, "blob": bytes([0xFF - i, 0x80 + i])}
               for i, t in enumerate([TEXT, "東京", "Ærø"])]
    fastavro.writer(out, schema, records, sync_marker=bytes(range(16)))
    return out.getvalue()


def thrift_call():
    """TBinaryProtocol (strict) CALL getUser(1: i64 id, 2: string name, 3: binary avatar)."""
    name = b"getUser"
    seqid = 1
    msg = struct.pack(">I", 0x80010000 | 1) + struct.pack(">i", len(name)) + name + struct.pack(">i", seqid)
    text = TEXT.encode("utf-8")
    blob = bytes([0xFF, 0xFE, 0x00, 0xC0, 0x80])
    msg += struct.pack(">bh", 10, 1) + struct.pack(">q", 42)  # field 1, i64
    msg += struct.pack(">bh", 11, 2) + struct.pack(">i", len(text)) + text  # field 2, string
    msg += struct.pack(">bh", 11, 3) + struct.pack(">i", len(blob)) + blob  # field 3, binary
    msg += b"\x00"  # STOP of the args struct
    return msg


def der_certificate():
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.x509.oid import NameOID

    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Ærøskøbing test"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "東京")])
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(0x1234567890)
            .not_valid_before(FIXED).not_valid_after(FIXED + datetime.timedelta(days=365))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, None))
    return cert.public_bytes(serialization.Encoding.DER)


def grpc_frame(message, compressed=False):
    return bytes([1 if compressed else 0]) + struct.pack(">I", len(message)) + message


def main():
    struct_pb = protobuf_struct()
    ts_pb = protobuf_timestamp()
    json_msg = json.dumps({"name": TEXT, "tags": ["東京", "Ærø"]}, ensure_ascii=False).encode("utf-8")
    bodies = [
        ("protobuf_struct", "application/x-protobuf", struct_pb),
        ("protobuf_timestamp", "application/protobuf", ts_pb),
        ("cbor_map", "application/cbor", cbor_map()),
        ("msgpack_map", "application/msgpack", msgpack_map()),
        ("bson_document", "application/bson", bson_document()),
        ("avro_container", "avro/binary", avro_container()),
        ("thrift_binary_call", "application/x-thrift", thrift_call()),
        ("der_certificate", "application/pkix-cert", der_certificate()),
        ("grpc_proto", "application/grpc+proto", grpc_frame(struct_pb)),
        # Two messages: a client stream.
        ("grpc_two_frames", "application/grpc", grpc_frame(struct_pb) + grpc_frame(ts_pb)),
        ("grpc_web_proto", "application/grpc-web+proto", grpc_frame(struct_pb)),
        ("grpc_web_text", "application/grpc-web-text", base64.b64encode(grpc_frame(struct_pb))),
        ("grpc_json", "application/grpc+json", grpc_frame(json_msg)),
    ]
    out = {"bodies": [{"name": n, "type": t, "hex": b.hex()} for n, t, b in bodies]}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
