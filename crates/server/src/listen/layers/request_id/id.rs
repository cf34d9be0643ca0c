//! A request's id, a leaf: what `crate::listen::carried` holds of the layer that makes it.

use axum::http::HeaderValue;

/// A request's id (printable ASCII, at most 64 bytes), carried in its extensions (`crate::listen::carried`).
#[derive(Clone, Debug)]
pub struct RequestId(pub HeaderValue);

impl RequestId {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        // Only printable ASCII is ever stored.
        self.0.to_str().unwrap_or("-")
    }
}
