//! An `.apr` appearance behind the format contract: read as stored, written back as
//! stored, converted by assembling the bindings, meshes and textures the context's side
//! files give ([`LooseFiles`]); and a character built from a model, written as the
//! `.apr` with its loose files beside it ([`Character`]).

use std::any::Any;

use meshfmt_core::format::{Context, FormatError, FormatFile, Written};
use meshfmt_core::{Converted, Model};

use crate::appearance::parse_loose_file_name;
use crate::character::Character;
use crate::companions::Appearance;
use crate::loose::LooseFiles;
use crate::{CoreOptions, ReadOptions, WriteOptions};

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

/// A character built from `model`, to be written as an `.apr` and its loose files.
pub(super) fn from_core(
    model: &Model,
    cx: &Context<'_>,
) -> Result<Converted<Box<dyn FormatFile>>, FormatError> {
    let options = WriteOptions {
        skeleton_name: cx.stem(),
        budget: cx.budget.clone(),
        ..WriteOptions::default()
    };
    let c = Character::from_core_with(model, &options)?;
    Ok(meshfmt_core::format::boxed(
        c.map(|c| CharacterFile { character: c }),
    ))
}

/// A character as built for writing.
struct CharacterFile {
    character: Character,
}

impl FormatFile for CharacterFile {
    fn format(&self) -> &'static str {
        crate::FORMAT_NAME
    }

    fn version(&self) -> String {
        "apr".into()
    }

    /// The `.apr`, with the `.skel` (named after it), meshes, bindings and textures
    /// beside it.
    fn write(&self, cx: &Context<'_>) -> Result<Written, FormatError> {
        let main = cx.budget.charged_output(self.character.write()?)?;
        let mut side = Vec::new();
        for (name, bytes) in self.character.files(&cx.stem())? {
            side.push((name, cx.budget.charged_output(bytes)?));
        }
        Ok(Written { main, side })
    }

    /// The character as an appearance read back would give it: its parts assembled on
    /// its own skeleton.
    fn to_core(&self, cx: &Context<'_>) -> Result<Converted<Model>, FormatError> {
        let files = self.character.files(&cx.stem())?;
        let loose = LooseFiles::around(&files, cx.budget.clone());
        let options = CoreOptions {
            skeleton: Some(&self.character.skel),
            assets: Some(&loose),
            budget: cx.budget.clone(),
            ..CoreOptions::default()
        };
        let mut model = self.character.appearance.to_core_with(&options)?;
        model.value.name = cx.stem();
        Ok(model)
    }

    fn as_any(&self) -> &dyn Any {
        &self.character
    }
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
