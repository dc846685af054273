//! The ASCII `3dmodel` variant.

use crate::error::{Result, invalid};
use crate::file::{File, ReadOptions};

pub(crate) fn read(_data: &[u8], _opts: &ReadOptions) -> Result<File> {
    Err(invalid("ASCII 3dmodel files are not supported yet"))
}
