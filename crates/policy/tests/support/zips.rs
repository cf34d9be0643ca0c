//! ZIPs built byte by byte (APPNOTE 4.3): stored or deflated entries, names flagged UTF-8.

use super::coders;

/// The CRC-32 of `bytes` (a ZIP's and a gzip's).
pub(crate) fn crc(bytes: &[u8]) -> u32 {
    let mut c = flate2::Crc::new();
    c.update(bytes);
    c.sum()
}

/// A stored ZIP of `(name, content)` entries, names flagged UTF-8.
pub(crate) fn zip(entries: &[(&[u8], &[u8])]) -> Vec<u8> {
    zip_with(entries, false)
}

/// A ZIP of `(name, content)` entries, stored or deflated, names flagged UTF-8.
pub(crate) fn zip_with(entries: &[(&[u8], &[u8])], deflate: bool) -> Vec<u8> {
    let (mut out, mut central) = (Vec::new(), Vec::new());
    for (name, content) in entries {
        let offset = out.len() as u32;
        let data = match deflate {
            true => coders::raw_deflate(content),
            false => content.to_vec(),
        };
        let mut common = vec![20, 0, 0, 8, 8 * u8::from(deflate), 0, 0, 0, 0, 0];
        common.extend_from_slice(&crc(content).to_le_bytes());
        common.extend_from_slice(&(data.len() as u32).to_le_bytes());
        common.extend_from_slice(&(content.len() as u32).to_le_bytes());
        common.extend_from_slice(&(name.len() as u16).to_le_bytes());
        common.extend_from_slice(&[0, 0]);
        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&common);
        out.extend_from_slice(name);
        out.extend_from_slice(&data);
        central.extend_from_slice(b"PK\x01\x02\x14\x03");
        central.extend_from_slice(&common);
        central.extend_from_slice(&[0; 10]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name);
    }
    let at = out.len() as u32;
    out.extend_from_slice(&central);
    let n = (entries.len() as u16).to_le_bytes();
    out.extend_from_slice(&[b'P', b'K', 5, 6, 0, 0, 0, 0, n[0], n[1], n[0], n[1]]);
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}
