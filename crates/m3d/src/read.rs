//! The entry points: a Model 3D file in either form, told apart by its first bytes (a
//! leaf above the binary reader in `file` and the text reader in `ascii`).

use parsing_primitives::Budget;

use crate::error::Result;
use crate::file::{File, ReadOptions};

/// Reads a binary Model 3D file with default options.
///
/// ```
/// let file = m3d_format::File::default();
/// let bytes = file.write()?;
/// let back = m3d_format::read(&bytes)?;
/// assert_eq!(back, file);
/// # Ok::<(), m3d_format::Error>(())
/// ```
pub fn read(data: &[u8]) -> Result<File> {
    read_with(data, &ReadOptions::default())
}

/// Reads a binary (`3DMO`) or ASCII (`3dmodel`) Model 3D file, drawing on one budget
/// (`opts.budget`, or a fresh one of `opts.budget.limits()`): the inflated payload and everything
/// decoded from it are charged to it.
///
/// ```
/// use m3d_format::{Error, File, Limits, ReadOptions};
/// let bytes = File::default().write()?;
/// let tiny = ReadOptions { budget: m3d_format::Budget::new(Limits { max_alloc_bytes: 8, ..Limits::DEFAULT }), ..ReadOptions::default() };
/// let e = m3d_format::read_with(&bytes, &tiny).unwrap_err();
/// assert!(matches!(e, Error::Inflate { .. } | Error::OverBudget(_)), "{e}");
/// # Ok::<(), m3d_format::Error>(())
/// ```
pub fn read_with(data: &[u8], opts: &ReadOptions) -> Result<File> {
    read_in(data, &opts.budget.clone())
}

/// [`read_with`], charging `budget`.
pub(crate) fn read_in(data: &[u8], budget: &Budget) -> Result<File> {
    if data.starts_with(b"3dmo") {
        return crate::ascii::read(data, budget);
    }
    crate::file::read_binary(data, budget)
}
