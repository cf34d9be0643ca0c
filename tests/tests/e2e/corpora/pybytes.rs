//! Python bytes literals, as the corpora write their wire requests (`b'...'`, `b"..."`,
//! `b'''...'''`, one request per line, adjacent literals on a line concatenated), parsed here in
//! Rust rather than through `python3 -c 'ast.literal_eval(...)'`: no subprocess per request and
//! no Python needed to run the replays. One test checks this reader against Python's own
//! (`ast`) on every corpus file when `python3` is there.

use std::process::Command;

use super::corpus;

/// Every request in `text`: the bytes of each line's literals (a triple-quoted one may span
/// lines), with `#` comments and blank lines skipped. Panics on anything else, naming the line.
pub(super) fn literals(text: &str) -> Vec<Vec<u8>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut current: Option<Vec<u8>> = None;
    let mut i = 0;
    let line_of = |i: usize| chars[..i].iter().filter(|&&c| c == '\n').count() + 1;
    while i < chars.len() {
        match chars[i] {
            '\n' => {
                out.extend(current.take());
                i += 1;
            }
            ' ' | '\t' | '\r' => i += 1,
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            'b' | 'B' => {
                let (bytes, next) =
                    literal(&chars, i + 1).unwrap_or_else(|e| panic!("line {}: {e}", line_of(i)));
                current.get_or_insert_with(Vec::new).extend(bytes);
                i = next;
            }
            c => panic!("line {}: unexpected {c:?}", line_of(i)),
        }
    }
    out.extend(current);
    out
}

/// One literal whose opening quote is at `start`: its bytes and the index after it.
fn literal(chars: &[char], start: usize) -> Result<(Vec<u8>, usize), String> {
    let quote = *chars.get(start).ok_or("a literal without quotes")?;
    if quote != '\'' && quote != '"' {
        return Err(format!("unsupported prefix before {quote:?}"));
    }
    let triple = chars.get(start..start + 3) == Some(&[quote; 3][..]);
    let mut i = start + if triple { 3 } else { 1 };
    let mut out = Vec::new();
    loop {
        let c = *chars.get(i).ok_or("an unterminated literal")?;
        if c == quote && (!triple || chars.get(i..i + 3) == Some(&[quote; 3][..])) {
            return Ok((out, i + if triple { 3 } else { 1 }));
        }
        if c == '\n' && !triple {
            return Err("a line break inside a one-line literal".into());
        }
        if !c.is_ascii() {
            return Err(format!("{c:?} in a bytes literal"));
        }
        i += 1;
        if c != '\\' {
            out.push(c as u8);
            continue;
        }
        let e = *chars.get(i).ok_or("a literal ending in a backslash")?;
        i += 1;
        match e {
            '\n' => {}
            '\\' | '\'' | '"' => out.push(e as u8),
            'a' => out.push(0x07),
            'b' => out.push(0x08),
            'f' => out.push(0x0C),
            'n' => out.push(b'\n'),
            'r' => out.push(b'\r'),
            't' => out.push(b'\t'),
            'v' => out.push(0x0B),
            'x' => {
                let hex: String = chars
                    .get(i..i + 2)
                    .ok_or("a short \\x escape")?
                    .iter()
                    .collect();
                out.push(u8::from_str_radix(&hex, 16).map_err(|_| format!("\\x{hex}"))?);
                i += 2;
            }
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.get(i).and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            i += 1;
                        }
                        None => break,
                    }
                }
                out.push((value & 0xFF) as u8);
            }
            // Python keeps an unknown escape as written.
            other => {
                out.push(b'\\');
                out.push(other as u8);
            }
        }
    }
}

#[test]
fn the_reader_handles_every_escape_and_concatenation() {
    let text =
        "# a comment\n\nb'a\\x00\\r\\n\\t\\\\\\'\"' b\"\\\"x\\q\"\nb'''multi\nline\\101'''\n";
    assert_eq!(
        literals(text),
        [b"a\x00\r\n\t\\'\"\"x\\q".to_vec(), b"multi\nlineA".to_vec()]
    );
}

/// This reader and Python's `ast` agree on every request of every corpus file written as bytes
/// literals (checked when `python3` is installed).
#[test]
fn the_reader_agrees_with_python_on_every_corpus_file() {
    let Some(root) = corpus(".") else { return };
    let files = [
        "waffled/json_requests.raw",
        "waffled/multipart_requests.raw",
        "waffled/xml_requests.raw",
        "waffled/valid_form_data.benign.txt",
        "charset-channels/requests.raw",
    ];
    let script = "import ast,sys\n\
                  for n in ast.parse(open(sys.argv[1], encoding='utf-8').read()).body:\n\
                  \x20   print(ast.literal_eval(n.value).hex())";
    for file in files {
        let path = root.join(file);
        let Ok(output) = Command::new("python3")
            .arg("-c")
            .arg(script)
            .arg(&path)
            .output()
        else {
            println!("python3 is not installed: the reader is not compared with Python's");
            return;
        };
        assert!(output.status.success(), "{file}: {output:?}");
        let python: Vec<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let ours: Vec<String> = literals(&text)
            .iter()
            .map(|b| b.iter().map(|x| format!("{x:02x}")).collect())
            .collect();
        assert_eq!(ours, python, "{file}");
    }
}
