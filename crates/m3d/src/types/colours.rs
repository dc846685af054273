//! What a stored colour field means: a CMAP index (ci u8/u16), literal RGBA (ci u32) or
//! nothing (ci absent).

/// The colour field's meaning, with the colour map found once (see
/// [`File::rgba`](crate::File::rgba)).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Colours<'a> {
    ci: usize,
    cmap: &'a [u32],
}

impl<'a> Colours<'a> {
    /// The colour field's meaning for `ci` bytes per colour and the colour map.
    pub(crate) fn new(ci: usize, cmap: &'a [u32]) -> Colours<'a> {
        Colours { ci, cmap }
    }

    /// As [`File::rgba`](crate::File::rgba).
    pub(crate) fn rgba(&self, color: u32) -> u32 {
        match self.ci {
            1 | 2 => self.cmap.get(color as usize).copied().unwrap_or(0),
            4 => color,
            _ => 0,
        }
    }
}
