//! A stack whose first entries live in an inline array (a leaf): the open containers of a
//! scan. A push or a pop is a compare and a store or a load; a deep document spills into a
//! `Vec`, allocated only then (a clean document of shallow containers allocates nothing).

/// A stack of `T`, its first `N` entries inline.
pub(crate) struct Stack<T, const N: usize> {
    /// The first `N` entries, bottom first.
    inline: [T; N],
    /// The entries past them.
    spill: Vec<T>,
    /// How many entries.
    len: usize,
}

impl<T: Copy + Default, const N: usize> Default for Stack<T, N> {
    fn default() -> Self {
        Stack {
            inline: [T::default(); N],
            spill: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Copy, const N: usize> Stack<T, N> {
    /// Pushes `value` on top.
    #[inline(always)]
    pub(crate) fn push(&mut self, value: T) {
        match self.inline.get_mut(self.len) {
            Some(slot) => *slot = value,
            None => self.spill.push(value),
        }
        self.len += 1;
    }

    /// Takes the top entry off, if there is one.
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<T> {
        let len = self.len.checked_sub(1)?;
        self.len = len;
        match self.inline.get(len) {
            Some(&value) => Some(value),
            None => self.spill.pop(),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// Pushes and pops, across the inline array's end, give what a `Vec` gives.
        #[test]
        fn a_stack_is_a_vec(steps in prop::collection::vec(any::<Option<u16>>(), 0..200)) {
            let mut stack = super::Stack::<u16, 8>::default();
            let mut model = Vec::new();
            for step in steps {
                match step {
                    Some(v) => {
                        stack.push(v);
                        model.push(v);
                    }
                    None => prop_assert_eq!(stack.pop(), model.pop()),
                }
            }
            while let Some(v) = model.pop() {
                prop_assert_eq!(stack.pop(), Some(v));
            }
            prop_assert_eq!(stack.pop(), None);
        }
    }
}
