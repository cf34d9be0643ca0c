//! How errors are answered: [`ErrorStyle`], the `[errors]` section of the configuration (a
//! listener's default) or a route's own. A leaf of `problem`.

/// How much a problem tells the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Type, title, status, request id, the detail and, for rejections, the verdict.
    #[default]
    Full,
    /// Type, title, status and request id only (the rest stays in the audit log).
    Minimal,
}

impl Detail {
    /// Every value, as the configuration names them.
    pub const NAMES: [&'static str; 2] = ["full", "minimal"];

    /// The value named `name` (`"full"` or `"minimal"`), if any.
    pub fn parse(name: &str) -> Option<Detail> {
        match name {
            "full" => Some(Detail::Full),
            "minimal" => Some(Detail::Minimal),
            _ => None,
        }
    }

    /// The configuration's name of the value.
    pub fn as_str(self) -> &'static str {
        match self {
            Detail::Full => "full",
            Detail::Minimal => "minimal",
        }
    }
}

/// How errors are answered: how much they say, and whether a client that prefers `text/html`
/// gets an HTML page. The problem layer uses the one in the response's extensions, else the one
/// in the request's (a route's, inserted early in the stack), else the listener's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorStyle {
    /// How much a problem tells (`errors.detail`).
    pub detail: Detail,
    /// Whether an HTML page may be served to a client that prefers it (`errors.html`); `false`:
    /// always problem+json.
    pub html: bool,
}

impl Default for ErrorStyle {
    /// The embedded default configuration's: full detail, HTML allowed.
    fn default() -> ErrorStyle {
        ErrorStyle {
            detail: Detail::Full,
            html: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_reads_back_as_its_value() {
        for name in Detail::NAMES {
            assert_eq!(Detail::parse(name).map(Detail::as_str), Some(name));
        }
        assert_eq!(Detail::parse("Full"), None);
        assert_eq!(Detail::parse(""), None);
    }
}
