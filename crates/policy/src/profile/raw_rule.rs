//! One `[actions.KIND]` table of a profile file as written: a default and an action per
//! location class.

use serde::Deserialize;

use crate::finding::Action;
use crate::location::LocationClass as C;
use crate::location::LocationClass;

/// An `[actions.KIND]` table: `default` and the per-class keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRule {
    pub(super) default: Option<Action>,
    path: Option<Action>,
    query: Option<Action>,
    header: Option<Action>,
    form: Option<Action>,
    json: Option<Action>,
    xml: Option<Action>,
    yaml: Option<Action>,
    multipart: Option<Action>,
    body: Option<Action>,
    archive: Option<Action>,
}

impl RawRule {
    pub(super) fn classes(&self) -> Vec<(LocationClass, Action)> {
        [
            (C::Path, self.path),
            (C::Query, self.query),
            (C::Header, self.header),
            (C::Form, self.form),
            (C::Json, self.json),
            (C::Xml, self.xml),
            (C::Yaml, self.yaml),
            (C::Multipart, self.multipart),
            (C::Body, self.body),
            (C::Archive, self.archive),
        ]
        .into_iter()
        .filter_map(|(c, a)| a.map(|a| (c, a)))
        .collect()
    }
}
