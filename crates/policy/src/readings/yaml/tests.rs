use crate::finding::FindingKind as K;
use crate::readings::yaml::*;
use crate::{Decision, Profile, Request, evaluate};

mod kept;

/// Fields as (part, pointer, bytes) and structural findings as (kind, message).
type Read = (Vec<(Part, String, Vec<u8>)>, Vec<(K, String)>);

/// The fields and structural findings of `body` read as `application/yaml`.
fn read_yaml(body: &[u8]) -> Read {
    read_with(body, &Profile::strict())
}

fn read_with(body: &[u8], profile: &Profile) -> Read {
    let mut out = Decomposed::new(profile);
    let ct = ContentType::parse(b"application/yaml");
    read(body, &ct, profile, false, &mut out);
    let fields = out
        .fields
        .iter()
        .map(|f| {
            let pointer = f
                .location
                .pointer
                .as_deref()
                .unwrap_or_default()
                .to_string();
            (f.location.part, pointer, f.bytes.to_vec())
        })
        .collect();
    let structural = out
        .structural
        .iter()
        .map(|(_, f)| (f.kind, f.message.clone()))
        .collect();
    (fields, structural)
}

fn strings(body: &str) -> Vec<(Part, String, String)> {
    let (fields, structural) = read_yaml(body.as_bytes());
    assert!(structural.is_empty(), "{body:?}: {structural:?}");
    fields
        .into_iter()
        .map(|(p, ptr, b)| (p, ptr, String::from_utf8(b).unwrap()))
        .collect()
}

fn kinds(body: &[u8]) -> Vec<K> {
    read_yaml(body).1.into_iter().map(|(k, _)| k).collect()
}

fn post(body: &[u8]) -> crate::Verdict {
    let request = Request::new("POST", b"/y")
        .header("Content-Type", b"application/yaml")
        .body(body);
    evaluate(&Profile::strict(), &request).verdict
}

#[test]
fn every_scalar_style_is_a_field_at_its_path() {
    let doc = "plain: one two\n'single': 'it''s'\n\"double\": \"a\\tb\"\nlit: |\n  x\n  y\nfold: >\n  p\n  q\nlist:\n  - [f, {k: v}]\n";
    let got = strings(doc);
    let want = [
        (Part::YamlKey, "/plain", "plain"),
        (Part::YamlString, "/plain", "one two"),
        (Part::YamlKey, "/single", "single"),
        (Part::YamlString, "/single", "it's"),
        (Part::YamlKey, "/double", "double"),
        (Part::YamlString, "/double", "a\tb"),
        (Part::YamlKey, "/lit", "lit"),
        (Part::YamlString, "/lit", "x\ny\n"),
        (Part::YamlKey, "/fold", "fold"),
        (Part::YamlString, "/fold", "p q\n"),
        (Part::YamlKey, "/list", "list"),
        (Part::YamlString, "/list/0/0", "f"),
        (Part::YamlKey, "/list/0/1/k", "k"),
        (Part::YamlString, "/list/0/1/k", "v"),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(p, ptr, s)| (*p, ptr.to_string(), s.to_string()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn pointers_escape_and_number_documents_only_in_a_stream_of_several() {
    let one = strings("a/b: {c~d: x}\n");
    assert_eq!(one[2].1, "/a~1b/c~0d");
    let two = strings("--- {a: x}\n--- [y]\n");
    let pointers: Vec<_> = two.iter().map(|(_, p, _)| p.as_str()).collect();
    assert_eq!(pointers, ["/0/a", "/0/a", "/1/0"]);
}

#[test]
fn escapes_decode_into_the_field_bytes() {
    let (fields, _) = read_yaml(b"a: \"\\0|\\x00|\\u00e9|\\U0001F600|\\N|\\_|\\L|\\P|\\e\"\n");
    let value = &fields[1].2;
    let want = "\0|\0|\u{e9}|\u{1F600}|\u{85}|\u{a0}|\u{2028}|\u{2029}|\u{1b}";
    assert_eq!(value, want.as_bytes());
    for body in [&b"a: \"\\0\"\n"[..], b"a: \"\\x00\"\n", b"[\"\\u0000\"]"] {
        let verdict = post(body);
        assert_eq!(verdict.decision, Decision::Reject, "{body:?}");
        assert!(
            verdict.findings.iter().any(|f| f.kind == K::Nul),
            "{body:?}"
        );
    }
}

#[test]
fn surrogate_escapes_are_reported_not_replaced() {
    for body in [
        &b"a: \"x\\ud800\"\n"[..],
        b"a: \"\\uDBFF\\uDFFF\"\n",
        b"- \"\\U0000DC00\"\n",
    ] {
        assert_eq!(kinds(body), [K::EscapedSurrogate], "{body:?}");
        let verdict = post(body);
        assert_eq!(verdict.decision, Decision::Reject);
    }
    assert_eq!(kinds(b"a: \"\\U00110000\"\n"), [K::MalformedBody]);
    assert_eq!(bad_escape("\"\\\\ud800 \\ud801\"", 0), Some((9, 0xD801)));
    assert_eq!(bad_escape("'\\ud800'", 0), None);
}

#[test]
fn second_readings_are_ambiguous_once_per_shape() {
    for body in [
        "a: !!binary aGVsbG8=\n",
        "a: !!python/object:os.system x\n",
        "a: !local x\n",
        "a: !!set {x}\n",
        "base: &b {x: 1}\nderived: {<<: *b}\n",
        "a: &x v\nb: *x\n",
        "a: 1\nb: 2\na: 3\n",
        "{a: 1, \"a\": 2}",
    ] {
        let found = kinds(body.as_bytes());
        assert!(found.contains(&K::AmbiguousYaml), "{body:?}: {found:?}");
        assert_eq!(post(body.as_bytes()).decision, Decision::Reject, "{body:?}");
    }
    let many = "a: &x v\n".to_string() + &"b: [*x, *x, *x]\n".repeat(1000);
    let found = kinds(many.as_bytes());
    assert_eq!(
        found,
        [K::AmbiguousYaml, K::AmbiguousYaml],
        "an alias and a repeated key"
    );
    for fine in [
        "a: !!str 1\nb: !!int 2\n",
        "a: &x v\n",
        "a: {b: 1}\nc: {b: 1}\n",
    ] {
        assert!(kinds(fine.as_bytes()).is_empty(), "{fine:?}");
    }
}

#[test]
fn a_body_that_is_not_yaml_or_past_a_limit_is_checked_as_text() {
    let (fields, structural) = read_yaml(b"a: [b\n\0");
    assert_eq!(structural[0].0, K::MalformedBody);
    assert_eq!(fields, [(Part::Body, String::new(), b"a: [b\n\0".to_vec())]);
    let deep = "[".repeat(65) + &"]".repeat(65);
    assert_eq!(kinds(deep.as_bytes()), [K::LimitExceeded]);
    let shallow = "[".repeat(64) + &"]".repeat(64);
    assert!(kinds(shallow.as_bytes()).is_empty());
    let mut few = Profile::strict();
    few.limits.max_json_strings = 3;
    let (fields, structural) = read_with(b"[a, b, c, d]", &few);
    assert_eq!(structural[0].0, K::LimitExceeded);
    assert_eq!(fields.len(), 1);
}

#[test]
fn a_body_that_is_not_utf8_is_diagnosed_and_its_lossy_text_read() {
    let body = b"a: \"\\0\xC0\xAE\"\n";
    let (fields, _) = read_yaml(body);
    assert_eq!(fields[0], (Part::Body, String::new(), body.to_vec()));
    assert!(
        fields
            .iter()
            .any(|f| f.0 == Part::YamlString && f.2.starts_with(b"\0"))
    );
    let verdict = post(body);
    assert_eq!(verdict.decision, Decision::Reject);
    let kinds: Vec<_> = verdict.findings.iter().map(|f| f.kind).collect();
    assert!(
        kinds.contains(&K::Overlong) && kinds.contains(&K::Nul),
        "{kinds:?}"
    );
}

#[test]
fn clean_multilingual_yaml_is_allowed_and_a_bom_is_its_own_field() {
    let doc = "title: Καλημέρα κόσμε\nja: こんにちは世界\nar: مرحبا بالعالم\nemoji: \"🎉 ok\"\nlist: [ελληνικά, 中文]\n";
    let verdict = post(doc.as_bytes());
    assert_eq!(verdict.decision, Decision::Allow, "{:?}", verdict.findings);
    let with_bom = [&utf8gate_codec::UTF8_BOM[..], doc.as_bytes()].concat();
    let (fields, structural) = read_yaml(&with_bom);
    assert!(structural.is_empty());
    assert_eq!(
        fields[0],
        (Part::Body, String::new(), utf8gate_codec::UTF8_BOM.to_vec())
    );
    assert_eq!(fields[1].2, b"title");
    assert_eq!(post(&with_bom).decision, Decision::Sanitize);
}

#[test]
fn a_finding_that_would_rewrite_a_scalar_refuses_the_document() {
    // "e" + U+0301 is not NFC: strict normalizes elsewhere, refuses it in YAML.
    let verdict = post("a: \"e\u{301}\"\n".as_bytes());
    assert_eq!(verdict.decision, Decision::Reject);
    let f = verdict
        .findings
        .iter()
        .find(|f| f.kind == K::NotNfc)
        .unwrap();
    assert_eq!(f.action, crate::Action::Reject);
    assert_eq!(f.location.part, Part::YamlString);
}

#[test]
fn offsets_map_characters_to_bytes() {
    let text = "é".repeat(200) + "x";
    let offsets = capped::Offsets::new(&text);
    for i in [0, 1, 63, 64, 65, 130, 200] {
        assert_eq!(offsets.byte(i), 2 * i);
    }
    assert_eq!(offsets.byte(500), text.len());
}

#[test]
fn a_raw_nul_anywhere_is_refused() {
    for body in [
        &b"a: b # \0\n"[..],
        b"# \0\na: b\n",
        b"a: b\0c\n",
        b"'\0'",
        b"a: |\n  \0\n",
    ] {
        assert_eq!(post(body).decision, Decision::Reject, "{body:?}");
    }
}

/// Found by the differential: PyYAML and ruamel.yaml read these differently from a YAML 1.2
/// parser.
#[test]
fn yaml_1_1_line_breaks_and_a_document_after_a_root_block_scalar_are_ambiguous() {
    for body in [
        "a: \"x\u{85}y\"\n",
        "# note\u{2028}a: b\n",
        "k: 'p\u{2029}'\n",
        ">\n---\nyes: b\n",
        "|\n  a\n--- b\n",
    ] {
        assert_eq!(kinds(body.as_bytes()), [K::AmbiguousYaml], "{body:?}");
    }
    assert!(kinds("a: \"\\N\\L\\P\"\n--- |\n  x\n".as_bytes()).is_empty());
}

#[test]
fn a_multipart_part_typed_yaml_is_read_as_yaml_at_its_part() {
    let part = |ct: &str, content: &str| {
        let body = format!(
            "--b\r\nContent-Disposition: form-data; name=\"cfg\"\r\nContent-Type: {ct}\r\n\r\n{content}\r\n--b--\r\n"
        );
        let request = Request::new("POST", b"/")
            .header("Content-Type", b"multipart/form-data; boundary=b")
            .body(body.as_bytes());
        evaluate(&Profile::strict(), &request).verdict
    };
    let verdict = part("application/yaml", "a: \"\\0\"");
    assert_eq!(verdict.decision, Decision::Reject);
    let nul = verdict.findings.iter().find(|f| f.kind == K::Nul).unwrap();
    assert_eq!(nul.location.part, Part::YamlString);
    assert_eq!(nul.location.name.as_deref(), Some("cfg"));
    assert_eq!(nul.location.pointer.as_deref(), Some("/a"));
    let alias = part("application/vnd.app+yaml", "a: &x b\nc: *x");
    assert!(alias.findings.iter().any(|f| f.kind == K::AmbiguousYaml));
    assert_eq!(part("text/plain", "a: \"\\0\"").decision, Decision::Allow);
    assert_eq!(part("text/yaml", "a: Καλημέρα").decision, Decision::Allow);
}

#[test]
fn text_after_a_raw_nul_is_not_hidden() {
    let (fields, structural) = read_yaml(b"a: b\n\0\nc: \"\\x41\"\n");
    assert_eq!(structural[0].0, K::MalformedBody);
    assert_eq!(fields[0].0, Part::Body);
    assert_eq!(post(b"a: b\n\0\nc: \"\\x41\"\n").decision, Decision::Reject);
}

#[test]
fn a_flow_collection_held_whole_is_a_limit_and_a_long_block_scalar_is_not() {
    let flow = "[".to_string() + &"a,".repeat(70_000) + "a]";
    let (fields, structural) = read_yaml(flow.as_bytes());
    assert_eq!(structural[0].0, K::LimitExceeded, "{:?}", structural[0].1);
    assert_eq!(fields.len(), 1, "checked as text");
    let prose = "text: |\n".to_string()
        + &"  Καλημέρα κόσμε: a line of prose, with one comma.\n".repeat(20_000);
    let (fields, structural) = read_yaml(prose.as_bytes());
    assert!(structural.is_empty(), "{structural:?}");
    assert_eq!(fields.len(), 2);
    let small = "{\"a\": [".to_string() + &"\"x\", ".repeat(5_000) + "\"y\"]}";
    assert!(kinds(small.as_bytes()).is_empty());
}

#[test]
fn a_yaml_upload_is_buffered_and_read_not_streamed() {
    for ct in [&b"text/yaml"[..], b"text/x-yaml", b"application/yaml"] {
        assert!(!crate::streamable(Some(ct)), "{ct:?}");
    }
    assert!(crate::streamable(Some(b"text/plain")));
}

#[test]
fn a_literal_block_of_json_text_reads_on_and_a_held_root_flow_is_cut() {
    let json = "{\"k\": [1, 2, 3], \"v\": \"x\"},\n".repeat(20_000);
    let block = "dashboard.json: |\n".to_string()
        + &json.lines().map(|l| format!("  {l}\n")).collect::<String>();
    let (fields, structural) = read_yaml(block.as_bytes());
    assert!(structural.is_empty(), "{structural:?}");
    assert_eq!(fields[1].2, json.as_bytes());
    // Only a flow collection at a document's root is held (it may be a key): a value's reads on.
    let value = "k: [".to_string() + &"a,".repeat(40_000) + "a]\n";
    assert!(kinds(value.as_bytes()).is_empty());
    let root = "[".to_string() + &"a,".repeat(40_000) + "a]: k\n";
    assert_eq!(kinds(root.as_bytes()), [K::LimitExceeded]);
}

#[test]
fn a_profile_may_let_aliases_through_never_expanded() {
    let mut profile = Profile::strict();
    profile.readings.yaml_aliases = crate::profile::YamlAliasReading::Check;
    let (fields, structural) = read_with(b"a: &x v\nb: [*x, *x]\nc: !!binary aGk=\n", &profile);
    assert_eq!(structural.len(), 1, "the tag still: {structural:?}");
    assert_eq!(fields.iter().filter(|f| f.2 == b"v").count(), 1);
    let toml = "name = \"p\"\nbase = \"strict\"\n[readings]\nyaml_aliases = \"check\"\n";
    let loaded = Profile::from_toml(toml, "p.toml").expect("valid");
    assert_eq!(
        loaded.readings.yaml_aliases,
        crate::profile::YamlAliasReading::Check
    );
}
