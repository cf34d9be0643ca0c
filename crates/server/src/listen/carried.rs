//! What a request carries from the layers of its listener to those inside them and to its
//! handler, in one extension: its peer (the accept loop), its hold on the listener's drain (an
//! upgrade), its id (`layers::request_id`), the configuration it started with, its route and
//! the route's error style (`layers::snapshot`).
//!
//! One value, not one extension each: `http::Extensions` boxes every value and grows its map
//! on the fourth, which cost about 2 700 instructions a request (a GET's proxying costs about
//! 58 000). A layer fills its own field ([`Carried::of_mut`], which inserts an empty one for a
//! stack served without the accept loop, as tests do); the proxy takes the value out whole.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::{Extensions, request::Parts};

use crate::listen::layers::request_id::RequestId;
use crate::listen::peer::Peer;
use crate::listen::serve::Draining;
use crate::problem::ErrorStyle;
use crate::routes::Choice;
use crate::state::{AppState, Snapshot};

/// The request's values of its listener's layers; a field is `None` until its layer ran.
#[derive(Clone, Default)]
pub struct Carried {
    /// The client (the accept loop).
    pub peer: Option<Peer>,
    /// A hold on the listener's drain, for a request that asks for an upgrade.
    pub draining: Option<Draining>,
    /// The request's id.
    pub id: Option<RequestId>,
    /// The configuration the request started with.
    pub snapshot: Option<Arc<Snapshot>>,
    /// The route its head chose (the proxy listener).
    pub choice: Option<Choice>,
    /// Its route's error style, when not the listener's own.
    pub errors: Option<ErrorStyle>,
}

impl Carried {
    /// The value in `extensions`, if a layer put one there.
    pub fn of(extensions: &Extensions) -> Option<&Carried> {
        extensions.get::<Carried>()
    }

    /// The value in `extensions`, an empty one inserted first if there is none.
    pub fn of_mut(extensions: &mut Extensions) -> &mut Carried {
        extensions.get_or_insert_default::<Carried>()
    }

    /// The request's id in `extensions`.
    pub fn id(extensions: &Extensions) -> Option<&RequestId> {
        Carried::of(extensions)?.id.as_ref()
    }

    /// The route chosen for the request in `extensions`.
    pub fn choice(extensions: &Extensions) -> Option<&Choice> {
        Carried::of(extensions)?.choice.as_ref()
    }

    /// The configuration the request in `extensions` started with, else the one in force now.
    pub fn snapshot(extensions: &Extensions, state: &AppState) -> Arc<Snapshot> {
        match Carried::of(extensions).and_then(|c| c.snapshot.as_ref()) {
            Some(snapshot) => snapshot.clone(),
            None => state.snapshot(),
        }
    }
}

/// The snapshot a request started with, as a handler's argument: the one the listener's first
/// layer put in the request's extensions (else the live one, for a router served without its
/// stack).
pub struct Current(pub Arc<Snapshot>);

impl FromRequestParts<AppState> for Current {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        Ok(Current(Carried::snapshot(&parts.extensions, state)))
    }
}
