//! The library behind the `meshfmt` tool: every supported format in one registry
//! ([`formats::FORMATS`]) with detection, `info` counts, conversion to and from
//! meshfmt-core and the faithful same-format rewrite. The xtask conformance run uses it
//! too, so the tool and the checks agree on what each format can do.
//!
//! A conversion can assemble its model from companion files ([`convert::ConvertOptions`]:
//! a skeleton file, animation files found by [`companions::expand`]'s patterns; files a
//! format finds beside the input, such as a Vitaboy appearance's loose files, come through
//! the side-file policy), split a mesh format's clips into the animation files its
//! [`FormatInfo`](meshfmt_core::format::FormatInfo) names, named by
//! [`companions::clip_file_stems`], and describe everything it lost and wrote as a
//! [`report::Report`]. The tool names no format crate outside its registry: everything
//! it knows of a format is that format's `FormatInfo`.
//!
//! Every entry point takes the [`meshfmt_core::Budget`] of the operation it is part of:
//! [`convert::convert`] makes one per conversion (from `ConvertOptions::limits`, the
//! tool's `--max-memory`) and charges it the input, every decoded array, side file and
//! generated element, the model and the output; [`gltf::import`] and [`obj::import`]
//! charge every accessor read, vertex and surface, so instancing, shared accessors and
//! repeated names cannot multiply past it.
//!
//! Names inside a file never lead outside what the user named: side files are read
//! under meshfmt-core's policy ([`meshfmt_core::side_files`]: the input's folder and the
//! folders in [`convert::ConvertOptions::side_folders`], regular files only, reads capped
//! by the budget), and [`output::write_outputs`] writes a conversion's files all or
//! nothing, never over a file beside the output unless forced.
//!
//! ```
//! let f = meshfmt::formats::detect(b"ms11", "x.mesh").map(|f| f.info().name);
//! assert_eq!(f.ok(), Some("unigine-mesh"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod companions;
pub mod convert;
pub mod error;
pub mod files;
pub mod formats;
pub mod gltf;
pub mod info;
pub mod json;
pub mod obj;
pub mod output;
pub mod report;
pub mod size;
