//! Encoders for content codings, for tests that send coded bodies.

use std::io::Write;

/// gzip (RFC 1952).
pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// deflate as specified: zlib (RFC 1950).
pub(crate) fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// deflate as some clients send it: raw (RFC 1951).
pub(crate) fn raw_deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// br (RFC 7932).
pub(crate) fn brotli(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::CompressorWriter::new(&mut out, 4096, 5, 22)
        .write_all(data)
        .unwrap();
    out
}
