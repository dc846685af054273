//! An `.apr` appearance behind the format contract: read as stored, written back as
//! stored, converted by assembling the bindings, meshes and textures the context's side
//! files give ([`LooseFiles`]).

use std::any::Any;

use meshfmt_core::format::{Context, FormatError, FormatFile, Written};
use meshfmt_core::{Converted, Model};

use crate::appearance::parse_loose_file_name;
use crate::companions::Appearance;
use crate::loose::LooseFiles;
use crate::{CoreOptions, ReadOptions};

/// An appearance as read.
struct AppearanceFile {
    apr: Appearance,
}

/// Reads `data` as an `.apr`.
pub(super) fn read(data: &[u8], cx: &Context<'_>) -> Result<Box<dyn FormatFile>, FormatError> {
    let options = ReadOptions {
        budget: cx.budget.clone(),
        ..ReadOptions::default()
    };
    Ok(Box::new(AppearanceFile {
        apr: Appearance::read_with(data, &options)?,
    }))
}

impl FormatFile for AppearanceFile {
    fn format(&self) -> &'static str {
        crate::FORMAT_NAME
    }

    fn version(&self) -> String {
        "apr".into()
    }

    fn write(&self, cx: &Context<'_>) -> Result<Written, FormatError> {
        Written::charged(self.apr.write()?, &cx.budget)
    }

    /// The appearance assembled from the loose files the context's side files give (none:
    /// every binding is reported missing), posed by the context's skeleton file, and
    /// named after the `.apr` (its loose name, without the ids).
    fn to_core(&self, cx: &Context<'_>) -> Result<Converted<Model>, FormatError> {
        let skel = super::skeleton(cx)?;
        let loose = cx
            .side_files
            .map(|side| LooseFiles::around(side, cx.budget.clone()));
        let options = CoreOptions {
            skeleton: skel.as_ref(),
            assets: loose.as_ref().map(|l| l as &dyn crate::Assets),
            budget: cx.budget.clone(),
            ..CoreOptions::default()
        };
        let mut model = self.apr.to_core_with(&options)?;
        let file = std::path::Path::new(cx.file_name)
            .file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
        model.value.name = match parse_loose_file_name(&file) {
            Some(l) => l.name.to_string(),
            None => cx.stem(),
        };
        Ok(model)
    }

    /// An appearance's parts are posed by the skeleton; without it they stay in bone
    /// space.
    fn needs_skeleton(&self) -> Option<&'static str> {
        Some("appearance")
    }

    fn as_any(&self) -> &dyn Any {
        &self.apr
    }
}
