//! Reading files the conversion needs, each checked against its budget before it is read
//! (a leaf module: `convert` and `companions` both use it).

use std::path::Path;

use meshfmt_core::BudgetExceeded;
use parsing_primitives::Budget;

use crate::error::CliError;

fn read(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|source| CliError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Reads a side file (a `.gltf`'s buffer, an `.obj`'s material library, an `.m3d`'s
/// texture) once its size is known to fit what is left of `budget` (the reader of the
/// bytes charges them).
pub fn read_side_file(path: &Path, budget: &Budget) -> Result<Vec<u8>, CliError> {
    let len = std::fs::metadata(path)
        .map_err(|source| CliError::Io {
            path: path.display().to_string(),
            source,
        })?
        .len();
    if len > budget.remaining() {
        return Err(BudgetExceeded {
            what: "the input file",
            requested: len,
            used: budget.used(),
            limit: budget.limits().max_alloc_bytes,
        }
        .into());
    }
    read(path)
}
