//! The verdict: what was found, what the profile does about it, and the decision.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::ser::SerializeMap as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::finding::Finding;
use crate::identity::IdentityReport;
use crate::location::LocationClass;

/// What happens to the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Nothing to reject, nothing rewritten: forward as it is.
    Allow,
    /// Some fields were rewritten: forward the sanitized request.
    Sanitize,
    /// At least one finding's action is `reject`.
    Reject,
}

impl Decision {
    /// The snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Sanitize => "sanitize",
            Decision::Reject => "reject",
        }
    }
}

/// The structured result of evaluating one request; documented field by field in
/// `docs/verdict.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// allow, sanitize or reject.
    pub decision: Decision,
    /// `false` in monitor mode: the decision is reported, not enforced.
    pub enforced: bool,
    /// The profile that decided.
    pub profile: std::sync::Arc<str>,
    /// Findings in request order, at most the profile's `max_findings`.
    pub findings: Vec<Finding>,
    /// `true` if more findings existed than are listed.
    pub findings_truncated: bool,
    /// Number of findings of each kind, listed or not.
    pub counts: BTreeMap<String, u64>,
    /// `true` if some field was rewritten to NFC.
    pub normalized: bool,
    /// Bytes of field content inspected (after decoding layers).
    pub bytes_inspected: u64,
    /// The same, by location class (`path`, `query`, `header`, `form`, `json`, `multipart`,
    /// `body`, …): a JSON object of the classes inspected.
    pub bytes_by_location: BytesByLocation,
    /// `true` when checking stopped before the end of the request: a finding rejected it (in
    /// enforce mode) and `max_findings` findings were listed, so nothing later could change the
    /// decision or the list. `counts` and `bytes_inspected` then cover what was read until then.
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    pub stopped_early: bool,
    /// Every identity field (`[[identity]]`) with its comparison form and skeleton, at most
    /// `max_findings`; absent when the profile names none (old clients see no change).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub identities: Vec<IdentityReport>,
    /// Why the body was not read as text, when it was not: a binary media type no reading
    /// claims (`image/png`), or no type and a NUL in its first 8 KiB. The decision is then
    /// about the rest of the request alone (an upload: `allow`). Absent when the body was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_text: Option<String>,
}

impl Verdict {
    /// The kinds found, each once, in name order.
    pub fn kinds(&self) -> Vec<&str> {
        self.counts.keys().map(String::as_str).collect()
    }
}

/// Bytes inspected by location class: a fixed array, so that counting them allocates nothing.
/// Serialized as a JSON object of the classes that had a field (even an empty one), in name
/// order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BytesByLocation {
    bytes: [u64; LocationClass::ALL.len()],
    /// Bit `i` set: class `i` of [`LocationClass::ALL`] had a field.
    present: u16,
}

impl BytesByLocation {
    /// Counts `bytes` in `class`.
    pub fn add(&mut self, class: LocationClass, bytes: u64) {
        let i = class as usize;
        self.bytes[i] += bytes;
        self.present |= 1 << i;
    }

    /// The bytes counted in `class`, `None` if it had no field.
    pub fn get(&self, class: LocationClass) -> Option<u64> {
        let i = class as usize;
        (self.present & (1 << i) != 0).then_some(self.bytes[i])
    }

    /// The classes that had a field, with their bytes, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (LocationClass, u64)> + '_ {
        BY_NAME
            .iter()
            .filter_map(|&class| self.get(class).map(|n| (class, n)))
    }

    /// `true` if no class had a field.
    pub fn is_empty(&self) -> bool {
        self.present == 0
    }
}

/// [`LocationClass::ALL`] in the order of their names (the order of the JSON object).
const BY_NAME: [LocationClass; LocationClass::ALL.len()] = {
    use LocationClass::*;
    [
        Archive, Body, Form, Header, Json, Multipart, Path, Query, Xml, Yaml,
    ]
};

impl Serialize for BytesByLocation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.present.count_ones() as usize))?;
        for (class, bytes) in self.iter() {
            map.serialize_entry(class.as_str(), &bytes)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for BytesByLocation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<String, u64>::deserialize(deserializer)?;
        let mut out = BytesByLocation::default();
        for (name, bytes) in map {
            let class = LocationClass::ALL
                .into_iter()
                .find(|c| c.as_str() == name)
                .ok_or_else(|| D::Error::custom(format!("unknown location class {name:?}")))?;
            out.add(class, bytes);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The classes are listed by name, as the map this replaced listed them.
    #[test]
    fn classes_are_in_name_order_and_all_there() {
        let mut names: Vec<&str> = LocationClass::ALL.iter().map(|c| c.as_str()).collect();
        names.sort_unstable();
        let by_name: Vec<&str> = BY_NAME.iter().map(|c| c.as_str()).collect();
        assert_eq!(by_name, names);
        for (i, class) in LocationClass::ALL.into_iter().enumerate() {
            assert_eq!(class as usize, i);
        }
    }

    /// Serialized as a map of the classes with fields (an empty field counts), read back the
    /// same; an unknown class is an error.
    #[test]
    fn serializes_as_an_object_of_the_classes_seen() {
        let mut bytes = BytesByLocation::default();
        assert_eq!(serde_json::to_string(&bytes).unwrap(), "{}");
        bytes.add(LocationClass::Query, 0);
        bytes.add(LocationClass::Path, 9);
        bytes.add(LocationClass::Header, 3);
        bytes.add(LocationClass::Header, 4);
        let json = serde_json::to_string(&bytes).unwrap();
        assert_eq!(json, r#"{"header":7,"path":9,"query":0}"#);
        assert_eq!(
            serde_json::from_str::<BytesByLocation>(&json).unwrap(),
            bytes
        );
        assert!(serde_json::from_str::<BytesByLocation>(r#"{"nowhere":1}"#).is_err());
    }
}
