//! The format writers and readers the fixtures and the conformance report exercise: one
//! row per format and version, each going through the tool's registry
//! (`meshfmt::formats`), so the checks exercise exactly what `meshfmt convert` does.

use meshfmt::formats;
use meshfmt_core::format::{Context, FormatError};
use meshfmt_core::{Converted, Model};

/// One format (and version) that can hold a model or part of one.
pub struct Codec {
    /// Crate name: the fixtures folder.
    pub crate_name: &'static str,
    /// Label in the report (format and version).
    pub label: &'static str,
    /// File extension of the fixtures.
    pub ext: &'static str,
    /// The registry name of the format.
    pub format: &'static str,
    /// The version written (`None`: what the extension implies, else the default).
    pub version: Option<&'static str>,
    /// A second file the format needs beside the first (Vitaboy meshes need their
    /// .skel): its extension; it is the same format's output for that extension.
    pub companion: Option<Companion>,
}

/// A file written beside a codec's main output.
pub struct Companion {
    /// Extension.
    pub ext: &'static str,
}

fn text(e: FormatError) -> String {
    e.to_string()
}

impl Codec {
    fn format(&self) -> Result<&'static dyn meshfmt_core::format::Format, String> {
        formats::by_name(self.format).ok_or_else(|| format!("no format {}", self.format))
    }

    /// The output file name the format sees (its extension picks kinds and forms).
    fn file_name(&self) -> String {
        format!("fixture.{}", self.ext)
    }

    /// canonical model -> bytes, with what the format could not hold (the companion's
    /// losses too: what it cannot hold is lost by this conversion).
    pub fn encode(&self, m: &Model) -> Result<Converted<Vec<u8>>, String> {
        let f = self.format()?;
        let name = self.file_name();
        let cx = Context {
            version: self.version,
            ..Context::new(&name)
        };
        let c = f.from_core(m, &cx).map_err(text)?;
        let bytes = c.value.write(&cx).map_err(text)?.main;
        let mut losses = c.losses;
        if let Some(companion) = &self.companion {
            let (_, more) = self.companion_file(m, companion)?;
            losses.extend(more);
        }
        Ok(Converted {
            value: bytes,
            losses,
        })
    }

    /// The companion file's bytes for `m`.
    pub fn encode_companion(&self, m: &Model) -> Result<Option<Vec<u8>>, String> {
        match &self.companion {
            Some(c) => Ok(Some(self.companion_file(m, c)?.0)),
            None => Ok(None),
        }
    }

    fn companion_file(
        &self,
        m: &Model,
        c: &Companion,
    ) -> Result<(Vec<u8>, Vec<meshfmt_core::Loss>), String> {
        let f = self.format()?;
        let name = format!("fixture.{}", c.ext);
        // Static models get the one ROOT bone the Vitaboy mesh writer gives them.
        let mut with_root;
        let m = if m.skeleton.is_empty() {
            with_root = m.clone();
            with_root.skeleton.bones.push(meshfmt_core::Bone {
                name: "ROOT".into(),
                ..Default::default()
            });
            &with_root
        } else {
            m
        };
        let cx = Context::new(&name);
        let s = f.from_core(m, &cx).map_err(text)?;
        let bytes = s.value.write(&cx).map_err(text)?.main;
        Ok((bytes, s.losses))
    }

    /// bytes (and the companion file's, if any) -> model.
    pub fn decode(&self, b: &[u8], companion: Option<&[u8]>) -> Result<Converted<Model>, String> {
        let f = self.format()?;
        let name = self.file_name();
        let cx = Context {
            skeleton: companion,
            ..Context::new(&name)
        };
        f.read(b, &cx)
            .and_then(|file| file.to_core(&cx))
            .map_err(text)
    }
}

const fn codec(
    crate_name: &'static str,
    label: &'static str,
    ext: &'static str,
    format: &'static str,
    version: Option<&'static str>,
) -> Codec {
    Codec {
        crate_name,
        label,
        ext,
        format,
        version,
        companion: None,
    }
}

pub const CODECS: &[Codec] = &[
    codec(
        "unigine-mesh",
        "unigine-mesh ms11",
        "ms11.mesh",
        "unigine-mesh",
        Some("ms11"),
    ),
    codec(
        "unigine-mesh",
        "unigine-mesh ms14",
        "ms14.mesh",
        "unigine-mesh",
        Some("ms14"),
    ),
    codec(
        "unigine-mesh",
        "unigine-mesh ms15",
        "ms15.mesh",
        "unigine-mesh",
        Some("ms15"),
    ),
    codec(
        "unigine-mesh",
        "unigine-mesh ms13",
        "ms13.mesh",
        "unigine-mesh",
        Some("ms13"),
    ),
    codec(
        "unigine-mesh",
        "unigine-mesh ms10",
        "ms10.mesh",
        "unigine-mesh",
        Some("ms10"),
    ),
    codec(
        "unigine-mesh",
        "unigine-mesh ms08",
        "ms08.smesh",
        "unigine-mesh",
        Some("ms08"),
    ),
    codec(
        "unigine-mesh",
        "unigine-mesh mi08",
        "mi08.mesh",
        "unigine-mesh",
        Some("mi08"),
    ),
    codec(
        "unity-meshser",
        "unity-meshser (Rounded)",
        "bytes",
        "unity-meshser",
        None,
    ),
    codec(
        "unigine-anim",
        "unigine-anim an10",
        "anim",
        "unigine-anim",
        Some("an10"),
    ),
    codec(
        "unigine-anim",
        "unigine-anim as08",
        "sanim",
        "unigine-anim",
        Some("as08"),
    ),
    Codec {
        companion: Some(Companion { ext: "skel" }),
        ..codec(
            "niotso-mesh",
            "niotso-mesh .mesh + .skel",
            "mesh",
            "niotso-mesh",
            Some("mesh"),
        )
    },
    codec(
        "unigine-anim",
        "unigine-anim an11",
        "an11.anim",
        "unigine-anim",
        Some("an11"),
    ),
    codec(
        "unigine-anim",
        "unigine-anim an12",
        "an12.anim",
        "unigine-anim",
        Some("an12"),
    ),
    codec(
        "m3d-format",
        "m3d-format binary",
        "m3d",
        "m3d",
        Some("binary"),
    ),
    codec(
        "m3d-format",
        "m3d-format ASCII",
        "a3d",
        "m3d",
        Some("ascii"),
    ),
];
