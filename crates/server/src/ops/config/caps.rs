//! The server's `[limits]` as they bear on profiles: the limit of every profile that does not
//! set its own, and a cap on the value of one that does.

use utf8gate_policy::Profile;

/// The server's `[limits]` as they bear on profiles.
pub(super) struct Caps {
    pub(super) max_json_depth: usize,
    pub(super) max_multipart_parts: usize,
    pub(super) max_multipart_depth: usize,
    pub(super) max_body_bytes: usize,
    /// `max_archive_entries`, `max_archive_name_bytes`, `max_archive_unpacked_bytes`,
    /// `max_archive_depth`.
    pub(super) archive: [u64; 4],
}

impl Caps {
    /// `max_json_depth`, `max_multipart_parts`, `max_multipart_depth` and the `max_archive_*` keys are the server's
    /// for a profile that does not set its own (a built-in, or a file without the key under
    /// `[limits]`), and caps on the value of one that does. `max_decoded_bytes` is capped at
    /// `max_body_bytes`, never raised. `file` is the text of a loaded profile.
    pub(super) fn apply(&self, p: &mut Profile, file: Option<&str>) {
        let own = file.and_then(|t| toml::from_str::<toml::Table>(t).ok());
        let sets = |key: &str| {
            own.as_ref()
                .and_then(|t| t.get("limits"))
                .and_then(|l| l.get(key))
                .is_some()
        };
        let cap = |own: usize, server: usize, key: &str| {
            if sets(key) { own.min(server) } else { server }
        };
        let l = &mut p.limits;
        l.max_json_depth = cap(l.max_json_depth, self.max_json_depth, "max_json_depth");
        l.max_multipart_parts = cap(
            l.max_multipart_parts,
            self.max_multipart_parts,
            "max_multipart_parts",
        );
        l.max_multipart_depth = cap(
            l.max_multipart_depth,
            self.max_multipart_depth,
            "max_multipart_depth",
        );
        let [entries, name, unpacked, depth] = self.archive.map(|v| v as usize);
        l.max_archive_entries = cap(l.max_archive_entries, entries, "max_archive_entries");
        l.max_archive_name_bytes = cap(l.max_archive_name_bytes, name, "max_archive_name_bytes");
        l.max_archive_depth = cap(l.max_archive_depth, depth, "max_archive_depth");
        let own_unpacked = l.max_archive_unpacked_bytes as usize;
        let unpacked = cap(own_unpacked, unpacked, "max_archive_unpacked_bytes");
        l.max_archive_unpacked_bytes = unpacked as u64;
        l.max_decoded_bytes = l.max_decoded_bytes.min(self.max_body_bytes);
    }
}
