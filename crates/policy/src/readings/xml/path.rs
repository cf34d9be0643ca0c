//! Where an XML field is: an XPath-like path of the open elements (`/feed/entry[2]/title`),
//! each step with its position among same-named siblings when it is not the first.

use std::collections::HashMap;

/// Longest path kept, in bytes: deeper steps are left out, so memory stays linear in the
/// body (as JSON pointers are cut).
const MAX_PATH_BYTES: usize = 1024;

/// The open elements.
#[derive(Debug, Default)]
pub(super) struct Path {
    /// The path of the innermost open element (cut at [`MAX_PATH_BYTES`]).
    text: String,
    /// One level per open element, and the root's siblings at the bottom.
    levels: Vec<Level>,
    /// Elements seen at the top (one, in a well-formed document).
    top: HashMap<String, usize>,
}

#[derive(Debug, Default)]
struct Level {
    /// `text`'s length before this element's step.
    before: usize,
    /// How many children of each name this element has had so far.
    children: HashMap<String, usize>,
}

impl Path {
    /// How many elements are open.
    pub(super) fn depth(&self) -> usize {
        self.levels.len()
    }

    /// An element named `name` opens inside the innermost one.
    pub(super) fn open(&mut self, name: &str) {
        let siblings = match self.levels.last_mut() {
            Some(level) => &mut level.children,
            None => &mut self.top,
        };
        let n = match siblings.get_mut(name) {
            Some(n) => {
                *n += 1;
                *n
            }
            None => {
                siblings.insert(name.to_string(), 1);
                1
            }
        };
        let before = self.text.len();
        let step = if n == 1 {
            name.to_string()
        } else {
            format!("{name}[{n}]")
        };
        if before + 1 + step.len() <= MAX_PATH_BYTES {
            self.text.push('/');
            self.text.push_str(&step);
        }
        // Else deeper steps are left out: the path says where the document got too deep.
        self.levels.push(Level {
            before,
            children: HashMap::new(),
        });
    }

    /// The innermost element closes (its end tag matched, `quick-xml` checks).
    pub(super) fn close(&mut self) {
        if let Some(level) = self.levels.pop() {
            self.text.truncate(level.before);
        }
    }

    /// The path of the innermost element, or of `step` inside it (`@href`, `text()`).
    pub(super) fn pointer(&self, step: Option<&str>) -> String {
        match step {
            Some(step) if self.text.len() + 1 + step.len() <= MAX_PATH_BYTES => {
                format!("{}/{step}", self.text)
            }
            _ if self.text.is_empty() => "/".to_string(),
            _ => self.text.clone(),
        }
    }
}
