//! The form reading: `application/x-www-form-urlencoded` bodies (and bodies of no type that
//! look like one, as a second reading), `&`-separated pairs percent-decoded with `+` as a
//! space, and the `_charset_` field that names the charset the fields are read in.

use crate::field::{Container, Field};
use crate::finding::FindingKind;
use crate::layers::decomposed::{Decomposed, Fields};
use crate::layers::query;
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::readings::parts;
use crate::readings::reading::BodyReading;
use crate::request::{ContentType, is_utf8_label, trim};

/// The form reading.
pub(crate) const READING: BodyReading = BodyReading {
    name: "form",
    claims: ContentType::is_form,
    sniffed: Some(sniffed),
    read,
};

/// The fields of a form body; past `max_parameters`, `limit_exceeded`.
fn read<'a>(body: &'a [u8], _: &ContentType, profile: &Profile, _: bool, out: &mut Decomposed<'a>) {
    let (fields, cut) = pairs(body, profile, out);
    form_charset(&fields, profile, out);
    out.fields.extend(fields);
    if cut {
        out.structural(
            Part::FormKey,
            FindingKind::LimitExceeded,
            0,
            format!("more than {} form fields", profile.limits.max_parameters),
        );
    }
}

/// A body of no type with `=` and no white space or control: some frameworks read it as a
/// form.
fn sniffed<'a>(body: &'a [u8], ct: &ContentType, profile: &Profile, out: &mut Decomposed<'a>) {
    let form_like = ct.essence.is_empty()
        && body.contains(&b'=')
        && !body
            .iter()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control());
    if form_like {
        let (fields, _) = pairs(body, profile, out);
        out.fields.extend(fields);
    }
}

/// The pairs of a form body, within `max_parameters` (and whether it cut them).
fn pairs<'b>(body: &'b [u8], profile: &Profile, out: &mut Decomposed) -> (Fields<'b>, bool) {
    let (max, mut fields) = (profile.limits.max_parameters, Fields::new());
    let cut = query::fields(
        body,
        Container::Body,
        0,
        true,
        max,
        &mut out.layer_room,
        &mut fields,
    );
    (fields, cut)
}

/// A `_charset_` form field naming another charset than UTF-8: Apache Sling (AEM) and others
/// read every field in it (HTML §4.10.21.8 lets a form send it). Reported as a foreign charset;
/// where the profile transcodes, every field is also checked as that charset reads it.
fn form_charset(fields: &[Field], profile: &Profile, out: &mut Decomposed) {
    let label = fields.windows(2).find_map(|pair| {
        let named = pair[0].location.part == Part::FormKey && *pair[0].bytes == *b"_charset_";
        let valued = pair[1].location.part == Part::FormValue;
        (named && valued)
            .then(|| String::from_utf8_lossy(trim(&pair[1].bytes)).to_ascii_lowercase())
    });
    let Some(label) = label.filter(|l| !is_utf8_label(l)) else {
        return;
    };
    let location = Location::part(Part::FormValue).with_name(b"_charset_");
    let message = format!("the _charset_ field names {label:?}: form fields are read in it");
    out.structural_at(location, FindingKind::ForeignCharset, 0, message);
    for field in fields {
        let part = field.location.part;
        if let Some(text) = parts::transcoded(profile, &label, &field.bytes, part, out) {
            let mut second = Field::raw(field.location.clone(), &[], Container::Body, 0..0);
            second.bytes = text.into();
            second.check_only = true;
            out.fields.push(second);
        }
    }
}
