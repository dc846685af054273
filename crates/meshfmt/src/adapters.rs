//! Glue between the tool and each format crate: inspect, decode to meshfmt-core,
//! encode from it, and the faithful same-format rewrite.

use meshfmt_core::{Converted, Model};

use crate::error::CliError;
use crate::info::Info;

/// Quantization quality for formats that quantize.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Quality {
    /// Byte for byte what the format's original tool writes (truncation, padded boxes).
    Compatible,
    /// Nearest rounding and tight boxes: at most half the original's error.
    Rounded,
}

/// Options for encoding from meshfmt-core.
#[derive(Debug, Clone, Copy, Default)]
pub struct EncodeOptions {
    /// Requested quality, `None` for the format's default.
    pub quality: Option<Quality>,
}

fn err(e: impl std::fmt::Display) -> CliError {
    CliError::Format(e.to_string())
}

/// unity-meshser adapters.
pub mod unity {
    use super::*;
    use unity_meshser::{MeshFile, Quantization, WriteOptions};

    /// Counts for `info`.
    pub fn inspect(data: &[u8]) -> Result<Info, CliError> {
        let f = unity_meshser::read(data).map_err(err)?;
        Ok(Info {
            format: "unity-meshser".into(),
            version: "MeshSerializer2".into(),
            surfaces: 1,
            vertices: f.vertex_count() as u64,
            triangles: f.triangle_count() as u64,
            ..Info::default()
        })
    }

    /// Decode to meshfmt-core.
    pub fn to_core(data: &[u8]) -> Result<Converted<Model>, CliError> {
        unity_meshser::read(data)
            .map_err(err)?
            .to_core()
            .map_err(err)
    }

    /// Encode from meshfmt-core.
    pub fn from_core(model: &Model, opts: &EncodeOptions) -> Result<Converted<Vec<u8>>, CliError> {
        let quantization = match opts.quality {
            Some(Quality::Compatible) => Quantization::Compatible,
            Some(Quality::Rounded) | None => Quantization::Rounded,
        };
        let wo = WriteOptions {
            quantization,
            ..WriteOptions::default()
        };
        let conv = MeshFile::from_core(model, &wo).map_err(err)?;
        let bytes = conv.value.write().map_err(err)?;
        Ok(Converted {
            value: bytes,
            losses: conv.losses,
        })
    }

    /// Faithful rewrite.
    pub fn rewrite(data: &[u8]) -> Result<Vec<u8>, CliError> {
        unity_meshser::read(data).map_err(err)?.write().map_err(err)
    }
}
