//! Where a YAML walk's scalars go (a leaf): kept while they cost less than the stream's bytes,
//! and nowhere once past that (the stream is read through, and one field stands for it); or
//! one at a time to the checks when that field is checked.

use core::ops::ControlFlow;
use std::borrow::Cow;

use crate::field::{Container, Field};
use crate::layers::decomposed::Fields;
use crate::location::{Location, Part};
use crate::readings::json;

/// A scalar read: what its field will be.
pub(super) struct Scalar<'t> {
    /// `yaml_key` or `yaml_string`.
    pub(super) part: Part,
    /// Its path, as a JSON pointer (cut).
    pub(super) pointer: String,
    /// Its value, escapes decoded.
    pub(super) bytes: Cow<'t, [u8]>,
    /// Its span in the body.
    pub(super) span: core::ops::Range<usize>,
}

impl<'t> Scalar<'t> {
    /// A scalar at `pointer`, which is cut as a JSON pointer is (kept whole, a stream of long
    /// keys and many values would make the scalars quadratic in its size).
    pub(super) fn new(
        part: Part,
        pointer: &str,
        bytes: Cow<'t, [u8]>,
        span: core::ops::Range<usize>,
    ) -> Self {
        let pointer = json::cut_pointer(pointer).to_string();
        Scalar {
            part,
            pointer,
            bytes,
            span,
        }
    }

    /// Its field.
    pub(super) fn field(self) -> Field<'t> {
        Field {
            bytes: self.bytes.into(),
            ..Field::raw(
                Location::part(self.part).with_pointer(&self.pointer),
                &[],
                Container::Body,
                self.span,
            )
        }
    }
}

/// Where a walk's scalars go.
pub(super) enum Scalars<'t, 'o> {
    /// Kept, while they are at most `budget`; past that, dropped, `overflowed` set, and no
    /// more kept: the stream is read through.
    Kept {
        /// The scalars read so far.
        read: Vec<Scalar<'t>>,
        /// How many may be kept.
        budget: usize,
        /// Whether they outgrew it.
        overflowed: bool,
    },
    /// One at a time to `f`, each at the name, index and `check_only` of the stream's field.
    Each {
        /// The field that stands for the stream.
        stream: &'o Field<'o>,
        /// What each field is handed to.
        f: &'o mut dyn FnMut(&Field) -> ControlFlow<()>,
    },
}

impl<'t> Scalars<'t, '_> {
    /// Takes `scalar`; `Break` when [`Scalars::Each`]'s function asks to stop.
    pub(super) fn take(&mut self, scalar: Scalar<'t>) -> ControlFlow<()> {
        match self {
            Scalars::Kept {
                read,
                budget,
                overflowed,
            } if !*overflowed => {
                read.push(scalar);
                if read.len() > *budget {
                    *read = Vec::new();
                    *overflowed = true;
                }
            }
            Scalars::Kept { .. } => {}
            Scalars::Each { stream, f } => {
                let mut field = scalar.field();
                field.location.name.clone_from(&stream.location.name);
                field.location.index = stream.location.index;
                field.check_only = stream.check_only;
                return f(&field);
            }
        }
        ControlFlow::Continue(())
    }

    /// Puts the scalars kept into `fields`; whether they outgrew their budget.
    pub(super) fn finish(self, fields: &mut Fields<'t>) -> bool {
        match self {
            Scalars::Kept {
                read, overflowed, ..
            } => {
                fields.extend(read.into_iter().map(Scalar::field));
                overflowed
            }
            Scalars::Each { .. } => false,
        }
    }

    /// The scalars kept, if any (a mutable borrow: the first document's get their `/0` when a
    /// second one starts).
    pub(super) fn kept(&mut self) -> &mut [Scalar<'t>] {
        match self {
            Scalars::Kept { read, .. } => read,
            _ => &mut [],
        }
    }
}
